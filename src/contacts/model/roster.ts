import { parse } from 'csv-parse/sync'

/** The contact fields a roster row can carry; the names are also the export's header. */
export const ROSTER_FIELDS = [
  'name',
  'email',
  'company',
  'phone',
  'personalId',
  'contactType',
  'language',
  'externalId',
  'unit',
  'status',
] as const
export type RosterField = (typeof ROSTER_FIELDS)[number]
export type RosterRow = Partial<Record<RosterField, string>>

type HeaderTarget = RosterField | 'firstName' | 'lastName'

// Headers as rosters from student, HR and housing systems spell them, compared after `headerKey`
// (lower case, letters and digits only): "E-mail Address", "Student ID", "Last name" all match.
const SYNONYMS: Record<HeaderTarget, string[]> = {
  name: ['name', 'fullname', 'contactname', 'recipient', 'recipientname', 'resident', 'residentname', 'displayname'],
  firstName: ['firstname', 'givenname', 'forename', 'first'],
  lastName: ['lastname', 'surname', 'familyname', 'last'],
  email: ['email', 'emailaddress', 'mail', 'emailid'],
  company: ['company', 'organisation', 'organization', 'department', 'dept', 'employer'],
  phone: ['phone', 'phonenumber', 'telephone', 'tel', 'mobile', 'mobilephone', 'cell', 'cellphone'],
  externalId: ['externalid', 'sourcedid', 'immutableid', 'objectguid', 'uuid', 'guid', 'directoryid'],
  unit: ['unit', 'room', 'roomnumber', 'apartment', 'apt', 'suite', 'mailstop', 'office', 'flat'],
  status: ['status', 'active', 'state'],
  personalId: [
    'personalid',
    'id',
    'idnumber',
    'studentid',
    'studentnumber',
    'employeeid',
    'employeenumber',
    'residentid',
    'staffid',
    'badge',
  ],
  contactType: ['contacttype', 'type'],
  language: ['language', 'lang', 'locale', 'preferredlanguage'],
}
const BY_KEY = new Map(
  (Object.entries(SYNONYMS) as Array<[HeaderTarget, string[]]>).flatMap(([f, keys]) => keys.map((k) => [k, f])),
)

export function headerKey(h: string): string {
  return h
    .normalize('NFKD')
    .replace(/\p{M}+/gu, '')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '')
}

export const DELIMITERS = [',', ';', '\t'] as const
export type Delimiter = (typeof DELIMITERS)[number]

/**
 * The separator a spreadsheet used: the candidate that splits the header line into the most
 * cells (Excel writes ";" where the decimal mark is a comma, and "Unicode text" is tab separated).
 * Quoted header cells are not split by it, as the header of a real roster never quotes a separator.
 */
export function detectDelimiter(text: string): Delimiter {
  const first = text.split(/\r\n|\n|\r/, 1)[0] ?? ''
  let best: Delimiter = ','
  let most = 0
  for (const d of DELIMITERS) {
    const n = first.split(d).length - 1
    if (n > most) [best, most] = [d, n]
  }
  return best
}

// Export cells a spreadsheet would run as a formula carry a leading apostrophe (as the packages
// export does); reading one back strips it, so an exported roster re-imports unchanged.
const FORMULA = /^[=+\-@\t\r]/
export const guardCell = (v: string): string => (FORMULA.test(v) ? `'${v}` : v)
const unguardCell = (v: string): string => (v.startsWith("'") && FORMULA.test(v.slice(1)) ? v.slice(1) : v)

export interface ParsedRoster {
  /** The CSV separator found; "" for a spreadsheet (XLSX). */
  delimiter: Delimiter | ''
  /** Each header cell and the field it fills; `null`: ignored. */
  columns: Array<{ header: string; field: HeaderTarget | null }>
  warnings: string[]
  /** `line`: the file's line number of the row (header is 1), for the clerk to find it. */
  rows: Array<{ line: number; row: RosterRow }>
}

/**
 * A roster file → its rows. RFC 4180 quoting through csv-parse; a byte-order mark, blank lines
 * and surrounding spaces are dropped; a row with more or fewer cells than the header is read as
 * far as it goes. Throws csv-parse's CsvError on a malformed file (an unclosed quote).
 */
export function parseRoster(text: string): ParsedRoster {
  const delimiter = detectDelimiter(text.replace(/^\uFEFF/, ''))
  const records = parse(text, {
    bom: true,
    delimiter,
    relax_column_count: true,
    skip_empty_lines: true,
    trim: true,
    info: true,
  }) as Array<{ record: string[]; info: { lines: number } }>
  return rosterOfRecords(records, delimiter)
}

/**
 * Rows of cells (the header first; `info.lines`: the line or spreadsheet row each ends on) → the
 * roster: headers matched to fields, rows to contacts' fields. CSV and XLSX files share it.
 */
export function rosterOfRecords(
  records: Array<{ record: string[]; info: { lines: number } }>,
  delimiter: ParsedRoster['delimiter'],
): ParsedRoster {
  const [head, ...body] = records
  if (!head) return { delimiter, columns: [], warnings: ['The file is empty.'], rows: [] }
  const warnings: string[] = []
  const seen = new Set<HeaderTarget>()
  const columns = head.record.map((header) => {
    const field = BY_KEY.get(headerKey(header)) ?? null
    if (field === null) warnings.push(`Column "${header}" is not a contact field: ignored.`)
    else if (seen.has(field)) {
      warnings.push(`Column "${header}" repeats ${field}: ignored.`)
      return { header, field: null }
    }
    if (field !== null) seen.add(field)
    return { header, field }
  })
  if (!seen.has('name') && !seen.has('firstName') && !seen.has('lastName'))
    warnings.push('No name column (name, full name, or first and last name): every row needs a name.')
  const rows = body.map(({ record, info }) => {
    const row: RosterRow = {}
    const parts: Partial<Record<'firstName' | 'lastName', string>> = {}
    columns.forEach(({ field }, i) => {
      const v = unguardCell(record[i] ?? '')
      if (!field || v === '') return
      if (field === 'firstName' || field === 'lastName') parts[field] = v
      else row[field] = v
    })
    if (row.name === undefined && (parts.firstName || parts.lastName))
      row.name = [parts.firstName, parts.lastName].filter(Boolean).join(' ')
    return { line: info.lines, row }
  })
  return { delimiter, columns, warnings, rows }
}
