import { distance } from 'fastest-levenshtein'
import { parsePersonName, type PersonName } from '../../decode/index.js'
import { givenNameForms, sameGivenName } from './nicknames.js'
import { normalizeForMatch } from './normalize.js'

/** What a label says of its recipient (decode/label's ShipTo, or typed by a clerk). */
export interface ReadRecipient {
  name?: PersonName
  company?: string
  unit?: string
}

/** A directory contact as the matcher reads it. */
export interface DirectoryEntry {
  contactId: string
  name: string
  company?: string | null
  unit?: string | null
  aliases: readonly string[]
  group: boolean
}

export interface ScoredEntry {
  contactId: string
  /** 0–1: how surely the label names this contact. */
  score: number
  /** The surname's similarity alone (0–1): "shares the surname" is ≥ SAME_SURNAME. */
  surname: number
  /** How the first name matched: the name or an alias or nickname of it, an initial, a near spelling, nothing. */
  first: 'name' | 'alias' | 'nickname' | 'initial' | 'similar' | 'none'
  /**
   * Middle names on one side only (the contact's not printed, or printed and not the contact's, by
   * initial): no part of the score, it orders people a label fits alike. "ROBERTA SCHMIDT" is
   * printed for Roberta Schmidt always and for Roberta W. Schmidt only when her middle name is left
   * off; absent is 0.
   */
  middleMisfit?: number
}

/** Surname similarity at or above which two surnames count as the same (OCR may drop an accent or a hyphen, nothing more). */
export const SAME_SURNAME = 0.95

// Weights: the surname says most (it is what the candidates were found by), the first name tells
// the people of one surname apart; a whole name that agrees scores 0.95. The last 0.05 is for a
// unit that agrees with the contact's, and a unit that disagrees takes 0.10 away: two John Parks
// are told apart by their rooms, and a label whose room is not the contact's is a doubt.
const SURNAME_WEIGHT = 0.57
const FIRST_WEIGHT = 0.38
const UNIT_BONUS = 0.05
const UNIT_PENALTY = 0.1
const COMPANY_BONUS = 0.03
// A first name printed as its initial is weaker evidence than the whole name: "R. SMITH" is any R.
const INITIAL_CREDIT = 0.75
// "SMITH ROBERT" (no comma) read the other way round: possible, a little less likely.
const SWAPPED_PENALTY = 0.05

/** Similarity of two words, 0–1, by edit distance (OCR's substitutions and drops cost one each). */
export function similarity(a: string, b: string): number {
  if (a === b) return 1
  const longest = Math.max(a.length, b.length)
  return longest === 0 ? 0 : 1 - distance(a, b) / longest
}

/** Surnames compared whole and without their joiners ("smith-jones" = "smith jones" = "smithjones", "o'brien" = "obrien"). */
function surnameSimilarity(read: string, contact: string): number {
  const bare = (s: string) => s.replace(/[\s'-]+/g, '')
  const whole = similarity(bare(read), bare(contact))
  // One part of a compound surname ("SMITH" for "Smith-Jones") is the same person less surely.
  const parts = contact.split(/[\s-]+/).filter((p) => p.length > 1)
  const part = parts.length > 1 ? Math.max(...parts.map((p) => similarity(bare(read), p))) * 0.85 : 0
  return Math.max(whole, part)
}

/**
 * The printed first name in the form aliases are kept in (normalizeForMatch), alone and with each
 * middle word after it: "MARY ANN SMITH" and "MARY-ANN SMITH" both give "mary ann" (an alias
 * "Mary-Ann" is two printed words), "SØREN" gives "soren".
 */
export function wholeFirstNames(read: PersonName): string[] {
  const words = [read.first, ...read.middle]
  return [...new Set(words.map((_, i) => normalizeForMatch(words.slice(0, i + 1).join(' '))).filter(Boolean))]
}

function firstScore(read: PersonName, contact: PersonName, aliases: readonly string[]): [number, ScoredEntry['first']] {
  if (!read.first) return [0, 'none']
  const names = [contact.first, ...contact.middle].filter(Boolean)
  if (read.initialOnly) {
    // A printed initial is the first name's (or an alias's); a middle name's is a weaker hint.
    if ([contact.first, ...aliases].some((n) => n[0] === read.first)) return [INITIAL_CREDIT, 'initial']
    return contact.middle.some((n) => n[0] === read.first) ? [INITIAL_CREDIT / 2, 'initial'] : [0, 'none']
  }
  if (contact.first === read.first) return [1, 'name']
  if (wholeFirstNames(read).some((f) => aliases.includes(f))) return [1, 'alias']
  if (sameGivenName(read.first, contact.first) || aliases.some((a) => sameGivenName(read.first, a)))
    return [0.97, 'nickname']
  // A middle name the person goes by ("J. Robert Smith" printed "ROBERT SMITH").
  if (contact.middle.includes(read.first)) return [0.9, 'name']
  // Misread letters: the nearest spelling of the name, an alias or a form of either.
  const forms = [...names, ...aliases].flatMap(givenNameForms)
  const near = Math.max(0, ...forms.map((f) => similarity(read.first, f)))
  return near >= 0.6 ? [near * 0.95, 'similar'] : [0, 'none']
}

function companyMatches(read: string, contact: string): boolean {
  const a = normalizeForMatch(read)
  const b = normalizeForMatch(contact)
  return a.length > 0 && (a === b || similarity(a, b) >= 0.85 || a.includes(b) || b.includes(a))
}

// A unit as labels and directories both write it: "STE 400", "Suite 400" and "#400" are 400.
const UNIT_WORDS =
  /^(?:SUITE|STE|UNIT|APT|APARTMENT|ROOM|RM|FLOOR|FL|BLDG|BUILDING|MAIL\s*STOP|MAILSTOP|MS|M\/S|MAIL\s*CODE|MC|OFFICE|OFC|#)\b\.?/

function bareUnit(u: string): string {
  const upper = u.toUpperCase().trim()
  return upper.replace(UNIT_WORDS, '').replace(/[^A-Z0-9]/g, '')
}

function extras(read: ReadRecipient, e: DirectoryEntry): number {
  let extra = 0
  if (read.unit && e.unit) extra += bareUnit(read.unit) === bareUnit(e.unit) ? UNIT_BONUS : -UNIT_PENALTY
  if (read.company && e.company && companyMatches(read.company, e.company)) extra += COMPANY_BONUS
  return extra
}

/** The directory's name of a contact in parts; a name of one word is a surname. */
function contactName(e: DirectoryEntry): PersonName | undefined {
  return parsePersonName(e.name)
}

/** How surely the label's person is this contact. */
export function scorePerson(read: ReadRecipient & { name: PersonName }, e: DirectoryEntry): ScoredEntry {
  const contact = contactName(e)
  // Folded whole, as migration 0076 indexes them: "Mary-Ann" is "mary ann", "Søren" is "soren".
  const aliases = e.aliases.map(normalizeForMatch).filter(Boolean)
  if (!contact) return { contactId: e.contactId, score: 0, surname: 0, first: 'none' }
  const orientations: Array<{ name: PersonName; penalty: number }> = [{ name: read.name, penalty: 0 }]
  // "MARY JONES WRIGHT": a double surname printed without its hyphen reads as a middle name.
  const middle = read.name.middle
  if (middle.length > 0)
    orientations.push({
      name: { ...read.name, middle: middle.slice(0, -1), last: `${middle.at(-1)!} ${read.name.last}` },
      penalty: 0,
    })
  if (!read.name.commaForm && read.name.first.length > 1 && read.name.middle.length === 0)
    orientations.push({
      name: { ...read.name, first: read.name.last, last: read.name.first },
      penalty: SWAPPED_PENALTY,
    })
  let best: ScoredEntry = { contactId: e.contactId, score: 0, surname: 0, first: 'none' }
  for (const o of orientations) {
    const surname = surnameSimilarity(o.name.last, contact.last)
    const [first, how] = firstScore(o.name, contact, aliases)
    const score = clamp(SURNAME_WEIGHT * surname + FIRST_WEIGHT * first + extras(read, e) - o.penalty)
    if (score > best.score)
      best = { contactId: e.contactId, score, surname, first: how, middleMisfit: middleMisfit(o.name, contact) }
  }
  return best
}

function middleMisfit(read: PersonName, contact: PersonName): number {
  const initials = (names: string[]) => names.map((n) => n[0])
  const printed = initials(read.middle)
  const theirs = initials(contact.middle)
  return theirs.filter((i) => !printed.includes(i)).length + printed.filter((i) => !theirs.includes(i)).length
}

/** How surely business mail (a company, no person) is for this contact: group contacts by their name or company. */
export function scoreBusiness(read: ReadRecipient & { company: string }, e: DirectoryEntry): ScoredEntry {
  const a = normalizeForMatch(read.company)
  const names = [e.name, e.company ?? ''].map(normalizeForMatch).filter(Boolean)
  const sim = Math.max(0, ...names.map((n) => (n === a ? 1 : similarity(a, n))))
  // A person's contact at that company is a weaker guess than the company's own group contact.
  const score = clamp((e.group ? sim : sim * 0.7) + extras({ unit: read.unit }, e))
  return { contactId: e.contactId, score, surname: 0, first: 'none' }
}

function clamp(x: number): number {
  return Math.max(0, Math.min(1, Math.round(x * 1000) / 1000))
}
