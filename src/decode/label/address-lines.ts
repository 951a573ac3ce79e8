// What kind of address line a label line is. US and Canadian layouts first (the carriers' 4×6
// labels), with the UK/EU postal code line as a fallback; OCR's usual confusions (O/0, I/1, S/5)
// are tolerated where the shape is unambiguous.

/** "SPRINGFIELD IL 62704", "SPRINGFIELD, IL 62704-1234", "TORONTO ON M5V 2T6", "LONDON SW1A 1AA", "75008 PARIS". */
const CITY_LINE = [
  /\b[A-Z]{2}\s*[,.]?\s+[0-9OIlS]{5}(?:\s*-\s*[0-9OIlS]{4})?\s*(?:US|USA)?$/i,
  /\b[A-Z]{2}\s+[A-Z]\d[A-Z]\s?\d[A-Z]\d$/i,
  /\b[A-Z]{1,2}\d[A-Z\d]?\s*\d[A-Z]{2}$/i,
  /^(?:US|USA|UNITED STATES|CANADA)$/i,
]
/** "75008 PARIS", "10115 BERLIN": a postal code before the city, where the line is not a street ("8831 HILL RD"). */
const CODE_FIRST = /^\d{4,5}\s+\p{L}[\p{L}\s'-]+$/u

const STREET_WORD_LAST =
  /\b(?:STREET|ST|AVENUE|AVE|ROAD|RD|BOULEVARD|BLVD|DRIVE|DR|LANE|LN|WAY|COURT|CT|PLACE|PL|PARKWAY|PKWY|HIGHWAY|HWY|SQUARE|SQ|TERRACE|CIRCLE|CIR|STRASSE|STR|RUE)\.?$/i

/** A street line: a house number then words, a PO box, or a street word. */
const STREET_LINE =
  /^(?:\d+[A-Z]?(?:-\d+)?\s+\S|P\.?\s*O\.?\s*BOX\b|POST OFFICE BOX\b)|\b(?:STREET|ST|AVENUE|AVE|ROAD|RD|BOULEVARD|BLVD|DRIVE|DR|LANE|LN|WAY|COURT|CT|PLACE|PL|PARKWAY|PKWY|HIGHWAY|HWY|SQUARE|SQ|TERRACE|CIRCLE|CIR)\.?\s*$/i

// Keywords of a unit: suite, unit, apartment, room, floor, building, mail stop, or "#".
const UNIT_KEYWORD =
  '(?:(?:SUITE|STE|UNIT|APT|APARTMENT|ROOM|RM|FLOOR|FL|BLDG|BUILDING|MAIL\\s*STOP|MAILSTOP|MS|M\\/S|MAIL\\s*CODE|MC|DEPT|OFFICE|OFC)\\b|#)'
const UNIT = new RegExp(`(?:^|[\\s,])${UNIT_KEYWORD}\\s*[:.#]?\\s*([A-Z0-9][A-Z0-9-]*)\\b`, 'i')
const UNIT_ONLY = new RegExp(`^${UNIT_KEYWORD}\\s*[:.#]?\\s*[A-Z0-9][A-Z0-9-]*$`, 'i')

export function isCityLine(t: string): boolean {
  const line = t.trim()
  return CITY_LINE.some((re) => re.test(line)) || (CODE_FIRST.test(line) && !STREET_WORD_LAST.test(line))
}

export function isStreetLine(t: string): boolean {
  return STREET_LINE.test(t.trim())
}

/** A line that is only a unit: "STE 400", "MAIL STOP B-12", "# 12". */
export function isUnitLine(t: string): boolean {
  return UNIT_ONLY.test(t.trim())
}

/** Keywords that are also other words (Ms, Florida, Dept. of…): they name a unit only with a digit in it. */
const AMBIGUOUS = /^(?:MS|FL|DEPT|OFFICE|OFC|MC|BLDG|BUILDING|FLOOR)$/i

/** The unit named in a line ("400" of "123 MAIN ST STE 400"), upper case; undefined when none. */
export function unitOf(t: string): string | undefined {
  if (isCityLine(t)) return undefined
  for (const m of t.matchAll(new RegExp(UNIT.source, 'gi'))) {
    const keyword = m[0]
      .trim()
      .replace(/[\s:.#]*[A-Z0-9][A-Z0-9-]*$/i, '')
      .replace(/^[\s,]+/, '')
    const unit = m[1]!.toUpperCase()
    if (AMBIGUOUS.test(keyword.replace(/\s+/g, '')) && !/\d/.test(unit)) continue
    if (!/\d/.test(unit) && unit.length > 4) continue
    return unit
  }
  return undefined
}
