import { parsePersonName, type PersonName } from './person-name.js'
import { isCityLine, isStreetLine, isUnitLine, unitOf } from './address-lines.js'

/** One line of text as OCR read it (confidence 0–100; absent: unknown, e.g. typed text). */
export interface TextLine {
  text: string
  confidence?: number
}

/** The recipient block of a label, read from its printed text. */
export interface ShipTo {
  /** The block's lines, as read (the SHIP TO marker removed). */
  lines: string[]
  /** The person's name line as printed (the name the console highlights), when one was found. */
  nameLine?: string
  name?: PersonName
  company?: string
  /** Street, city / state / postal code lines. */
  addressLines: string[]
  /** Unit, suite, room or mail stop, without its keyword ("400" of "STE 400", "B-12" of "MS B-12"). */
  unit?: string
  /** How the block was found: after a SHIP TO / TO / DELIVER TO marker, or the largest address-like block. */
  foundBy: 'marker' | 'address'
  /** Mean OCR confidence of the block's lines (0–100), when the lines carry one. */
  confidence?: number
}

// "SHIP TO:", "SHIP-TO", "SHIPTO", "DELIVER TO", "TO:", "TO" alone; OCR reads 0 for O and 1/l for I.
const MARKER =
  /^\s*(?:(?:SHIP|SH[1lI]P)\s*[-.]?\s*T[O0]|DE[L1I]{2}VER\s*T[O0]|CONSIGNEE|RECIPIENT|T[O0](?=\s*:|\s*$))\s*[:;.]?\s*/i
// Lines that start another block: the sender, the carrier's own fields.
const OTHER_BLOCK =
  /^\s*(?:SHIP\s*FROM|FROM|SENDER|SHIPPER|RETURN|BILL|REF|PO\s*#|INVOICE|DEPT\s*#|TRACKING|TRK|WEIGHT|WT|DIMS?|DATE|SHIP\s*DATE|ACT\s*WGT|CAD|USPS|UPS\b|FEDEX|DHL|PRIORITY|GROUND|EXPRESS|NEXT\s*DAY|2ND\s*DAY|HOME\s*DELIVERY|BILLING|CONTENTS)\b/i
const MAX_BLOCK_LINES = 7

/**
 * Finds the SHIP TO block of a label's text and reads the recipient out of it.
 *
 * The block is the lines after a "SHIP TO" / "TO:" / "DELIVER TO" marker (text after the marker on
 * its own line counts), up to and including the city / postal code line, or the start of another
 * block (FROM, the carrier's fields), or a blank. Without a marker, it is the address-like block
 * ending in a city line that is not the sender's (a block after FROM is the sender's); of several,
 * the one with the most lines, the later on a tie (ship-to blocks sit below the return address).
 */
export function findShipTo(text: ReadonlyArray<TextLine | string>): ShipTo | undefined {
  const lines = text.map((l) => (typeof l === 'string' ? { text: l } : l)).map((l) => ({ ...l, text: tidy(l.text) }))
  const byMarker = blockAfterMarker(lines)
  if (byMarker) return readBlock(byMarker, 'marker')
  const byAddress = largestAddressBlock(lines)
  return byAddress ? readBlock(byAddress, 'address') : undefined
}

/** Spaces collapsed, and the specks OCR reads at a photo's edges ("| SHIP TO:", "* UPS") dropped. */
function tidy(s: string): string {
  return s
    .replace(/\s+/g, ' ')
    .trim()
    .replace(/^[|[\]{}()*+_~•·,;:'"`<>\\/-]+\s*/, '')
}

function blockAfterMarker(lines: TextLine[]): TextLine[] | undefined {
  for (let i = 0; i < lines.length; i++) {
    const m = MARKER.exec(lines[i]!.text)
    if (!m) continue
    const rest = lines[i]!.text.slice(m[0].length).trim()
    let block: TextLine[] = rest ? [{ ...lines[i]!, text: rest }] : []
    for (let j = i + 1; j < lines.length && block.length < MAX_BLOCK_LINES; j++) {
      const line = lines[j]!
      if (!line.text) {
        if (block.length === 0) continue
        // A group of lines with no name and no address in it is not the recipient: the carrier's
        // weight column ("1 LBS 1 OF 1", "DWT: 10,8,4") read between the marker and the name when
        // the photo is turned. The block is what follows.
        if (!block.some((l) => holdsRecipient(l.text))) {
          block = []
          continue
        }
        // A name the photo's OCR set apart from its address by a blank: the address goes on in the
        // next group when that starts as one (a street, a unit, a city line).
        if (addressFollows(lines, j)) continue
        break
      }
      if (OTHER_BLOCK.test(line.text) || MARKER.test(line.text)) break
      block.push(line)
      if (isCityLine(line.text)) break
    }
    if (block.length > 0) return block
  }
  return undefined
}

/** Whether the first line after the blank at `blank` goes on with an address (its block has no city line yet). */
function addressFollows(lines: TextLine[], blank: number): boolean {
  let k = blank
  while (k < lines.length && !lines[k]!.text) k++
  const next = lines[k]?.text
  // With a number in it: a country alone ("US") is also what OCR makes of a speck.
  return (
    !!next && /\d/.test(next) && !OTHER_BLOCK.test(next) && (isStreetLine(next) || isUnitLine(next) || isCityLine(next))
  )
}

/** A line of a recipient block: a person's name, a company, a street, a city line. */
function holdsRecipient(t: string): boolean {
  return isCityLine(t) || isStreetLine(t) || COMPANY_WORDS.test(t) || personNameIn(t) !== undefined
}

function largestAddressBlock(lines: TextLine[]): TextLine[] | undefined {
  let best: TextLine[] | undefined
  for (let i = 0; i < lines.length; i++) {
    if (!isCityLine(lines[i]!.text)) continue
    const block: TextLine[] = [lines[i]!]
    let sender = false
    for (let j = i - 1; j >= 0 && block.length < MAX_BLOCK_LINES; j--) {
      const t = lines[j]!.text
      if (!t || isCityLine(t)) break
      if (OTHER_BLOCK.test(t)) {
        sender = /^\s*(?:SHIP\s*FROM|FROM|SENDER|SHIPPER|RETURN)/i.test(t)
        break
      }
      block.unshift(lines[j]!)
    }
    if (sender || block.length < 2) continue
    if (!best || block.length >= best.length) best = block
  }
  return best
}

function readBlock(block: TextLine[], foundBy: ShipTo['foundBy']): ShipTo {
  const texts = block.map((l) => l.text)
  const out: ShipTo = { lines: texts, addressLines: [], foundBy }
  const confidences = block.map((l) => l.confidence).filter((c): c is number => c !== undefined)
  if (confidences.length > 0) out.confidence = confidences.reduce((a, b) => a + b, 0) / confidences.length
  // Each person-like line as printed (what the console highlights) and as its name is read.
  const people: Array<{ line: string; name: string }> = []
  const others: string[] = []
  for (const raw of texts) {
    const t = raw.replace(/^(?:ATTN|ATTENTION|C\/O|CARE OF)\s*[:.]?\s*/i, '')
    const attn = t !== raw
    const unit = unitOf(t)
    if (unit && !out.unit) out.unit = unit
    if (isCityLine(t) || isStreetLine(t)) {
      out.addressLines.push(t)
      continue
    }
    if (isUnitLine(t)) continue
    const name = personNameIn(t)
    // "ATTN: JOHN SMITH" names the person before any other line; "ATTN: RECEIVING" is a department.
    if (name && attn) people.unshift({ line: t, name })
    else if (name) people.push({ line: t, name })
    else others.push(t)
  }
  const person = people[0]
  if (person) {
    out.nameLine = person.line
    out.name = parsePersonName(person.name)
  }
  // The company: the first line that is neither the person nor the address; a second person-like
  // line after the name is a company printed without a legal form ("ACME WIDGETS").
  const company = others[0] ?? people[1]?.line
  if (company) out.company = company
  return out
}

const COMPANY_WORDS =
  /\b(?:INC|LLC|LLP|LTD|LIMITED|CORP|CORPORATION|CO|COMPANY|GROUP|GMBH|PLC|SA|AG|BV|UNIVERSITY|COLLEGE|SCHOOL|HOSPITAL|CLINIC|CENTER|CENTRE|DEPT|DEPARTMENT|OFFICE|LAB|LABS|LABORATORY|SERVICES|SOLUTIONS|SYSTEMS|TECHNOLOGIES|PARTNERS|ASSOCIATES|HOLDINGS|INTERNATIONAL|FOUNDATION|INSTITUTE|BANK|STORE|SHOP|MAILROOM|RECEIVING|ACCOUNTS|PAYABLE|HR|FACILITIES|TEAM|THE|AND|&)\b/i

/**
 * The name a person-like line spells: the line itself, or the line with the letters OCR reads as
 * look-alikes put back ("STEPHEN 0'BRYAN", "SM1TH", "PAT ] HARIS"), when that makes it a name.
 * Only inside words of letters (and a lone bracket or bar, a misread initial): "STE 400", "1ST NATIONAL"
 * and "JOHN SMITH M5-101" stay as they are.
 */
function personNameIn(t: string): string | undefined {
  if (looksLikePerson(t)) return t
  const letters = t.split(' ').map(lettersOf).join(' ')
  return letters !== t && looksLikePerson(letters) ? letters : undefined
}

/** A word with its look-alike digits read as letters, when it is mostly letters and no ordinal ("1ST"). */
function lettersOf(w: string): string {
  const lone = LONE_LOOKALIKE.get(w)
  if (lone) return lone
  if (!/^[\p{L}0158'’.-]+$/u.test(w) || /^\d+(?:ST|ND|RD|TH)$/i.test(w)) return w
  const digits = w.replace(/[^0158]/g, '').length
  const letters = w.replace(/\P{L}/gu, '').length
  return digits > 0 && digits < letters ? w.replace(/[0158]/g, (d) => DIGIT_LOOKALIKE[d]!) : w
}

const DIGIT_LOOKALIKE: Record<string, string> = { '0': 'O', '1': 'I', '5': 'S', '8': 'B' }
// A Map: any word of a label is looked up in it ("constructor" is no key of it).
const LONE_LOOKALIKE = new Map([
  [']', 'J'],
  ['[', 'I'],
  ['|', 'I'],
])

/** Two to four words of letters (initials allowed), no company word: a person's name. */
function looksLikePerson(t: string): boolean {
  if (COMPANY_WORDS.test(t) || /\d/.test(t)) return false
  const words = t.split(/[\s,]+/).filter(Boolean)
  if (words.length < 2 || words.length > 5) return false
  return words.every((w) => /^[\p{L}][\p{L}'’.-]*$/u.test(w))
}
