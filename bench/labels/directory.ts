/**
 * A seeded directory of people with confusable surnames, and the labels addressed to them, for the
 * label-photo bench and the committed test labels. Confusables come in families that differ by a
 * letter or two (Smith, Smyth, Smithe, Schmidt), and first names in families that share an initial
 * or a nickname (Robert, Roberta, Rob; Christopher, Christina, Chris), so the matcher is tested on
 * what makes a mailroom's directory hard: many people one misread letter apart.
 */

import { upsCheckDigit } from '../../src/decode/index.js'

/** A UPS 1Z number with a valid check digit: the console treats it as a carrier's parcel. */
function upsNumber(rand: () => number): string {
  const body = `${Math.floor(rand() * 1e6)
    .toString(36)
    .toUpperCase()
    .padStart(6, '0')
    .slice(0, 6)}01${String(Math.floor(rand() * 1e7)).padStart(7, '0')}`
  return `1Z${body}${upsCheckDigit(body)}`
}

/** mulberry32: small, seeded, the same on every machine. */
export function seeded(seed: number): () => number {
  let a = seed >>> 0
  return () => {
    a = (a + 0x6d2b79f5) >>> 0
    let t = a
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
}

const SURNAME_FAMILIES = [
  'Smith Smyth Smithe Schmidt Smit',
  'Johnson Jonson Johnsen Jonsson',
  'Nguyen Nguen Nguyenn',
  'Lee Li Leigh Lea',
  'Brown Browne Braun',
  'Clark Clarke Clerk',
  'Reid Reed Read Reade',
  'Thompson Thomson Tompson',
  'Anderson Andersen Andersson',
  'Peterson Petersen Pedersen',
  'Meyer Meier Mayer Maier Myers',
  'Katz Kats Kaetz',
  'Green Greene Grean',
  'Gray Grey Graye',
  'Philips Phillips Filips',
  'Stewart Stuart Steward',
  'Wilson Willson Wilsen',
  'Harris Harriss Haris',
  'Martin Martins Marten',
  'Garcia Garza Garcias',
  'Lopez Lopes Lopex',
  'Hansen Hanson Hansson',
  'Carlson Carlsen Karlsson',
  'Fischer Fisher Fischler',
  'Cohen Cohn Kohn Coen',
  'Walsh Welsh Walshe',
  'McDonald MacDonald McDonnell',
  "O'Brien OBrien O'Bryan",
  'Kowalski Kowalsky Kovalski',
  'Novak Nowak Novack',
  'Singh Sing Singha',
  'Patel Patil Patell',
  'Khan Kahn Kann',
  'Wong Wang Wing',
  'Chen Chan Cheng',
  'Moore Moor More',
  'Taylor Tailor Tayler',
  'White Whyte Wight',
  'Young Yung Yuen',
  'Hall Hal Halle',
  'Allen Allan Alan',
  'King Kings Kinge',
  'Wright Right Wrigth',
  'Scott Scot Skott',
  'Baker Backer Bakker',
  'Hill Hills Hille',
  'Adams Addams Adam',
  'Nelson Neilson Nilsson',
  'Mitchell Mitchel Michell',
  'Roberts Robberts Robert',
  'Turner Tumer Tuner',
  'Campbell Cambell Campell',
  'Parker Parkar Barker',
  'Evans Evens Evan',
  'Edwards Edward Edwardes',
  'Collins Colins Collings',
  'Morris Moris Morriss',
  'Rogers Rodgers Roger',
  'Jones-Wright Jones Wrighton',
  'Alvarez Álvarez Alvares',
  'Muller Müller Mueller',
  'Dubois Dubos Dubois-Roy',
  'Ivanov Ivanova Ivanoff',
  'Kim Kimm Kin',
  'Park Parke Parks',
]

/** First names; the ones of one line share an initial or a nickname. */
const FIRST_FAMILIES = [
  'Robert Roberta Robin Rachel',
  'Christopher Christina Christine Chris',
  'Michael Michelle Michaela Mike',
  'William Willa Wilma Bill',
  'Elizabeth Eliza Elise Liz',
  'James Jamie Jane Janet',
  'John Joan Jon Joanna',
  'Daniel Danielle Dana Dan',
  'Alexander Alexandra Alexis Alex',
  'Samuel Samantha Sam',
  'Patrick Patricia Pat',
  'Thomas Tomas Tom Tamara',
  'Richard Rick Rita Ricardo',
  'Margaret Maggie Marge Mark',
  'Stephen Steven Stephanie Steve',
  'Kathleen Katherine Catherine Kate',
  'Joseph Josephine Jose Joe',
  'Andrew Andrea Andre Andy',
  'Nicholas Nicole Nicola Nick',
  'Anthony Antonia Antonio Tony',
  'David Davida Dave',
  'Susan Suzanne Sue',
  'Edward Edwina Ed',
  'Frederick Frederica Fred',
  'Jennifer Jenna Jen',
  'Benjamin Bernard Ben',
  'Gregory Greg',
  'Kenneth Ken',
  'Lawrence Laura Larry',
  'Victoria Victor Vicky',
  'Wei Ming Hui Mei',
  'Priya Pradeep Pranav',
  'Mohammed Mahmoud Mohammad',
  'Olga Oleg Olena',
  'Sean Shawn Shaun',
  'Zoe Zoey Zola',
]

/** The nickname a label may print instead of the first name (the shipper's account name). */
const NICKNAMES: Record<string, string> = {
  Robert: 'Bob',
  William: 'Bill',
  Elizabeth: 'Liz',
  Michael: 'Mike',
  Christopher: 'Chris',
  Richard: 'Rick',
  Margaret: 'Peggy',
  Stephen: 'Steve',
  Steven: 'Steve',
  Joseph: 'Joe',
  Andrew: 'Andy',
  Nicholas: 'Nick',
  Anthony: 'Tony',
  Edward: 'Ted',
  Katherine: 'Kathy',
  Kathleen: 'Kate',
  Daniel: 'Dan',
  Samuel: 'Sam',
  Thomas: 'Tom',
  Jennifer: 'Jenny',
}

const COMPANIES = ['Globex Corporation', 'Initech LLC', 'Umbrella Labs', 'Acme Widgets Inc', 'Stark Industries']
const STREETS = ['Main St', 'Harbor Blvd', 'Oak Ave', 'Pine Rd', 'Elm St', 'Market St', 'Lake Dr', 'Hill Rd']
const CITIES = ['SPRINGFIELD IL 62704', 'OAKLAND CA 94607', 'AUSTIN TX 78744', 'BOSTON MA 02110', 'DENVER CO 80202']
const MIDDLE = 'ABCDEFGHJKLMNPRSTW'

export interface Person {
  contactId: string
  first: string
  last: string
  middle?: string
  company?: string
  unit?: string
  aliases: string[]
}

export function makeDirectory(size: number, seed = 27): Person[] {
  const rand = seeded(seed)
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(rand() * xs.length)]!
  const surnames = SURNAME_FAMILIES.flatMap((f) => f.split(' '))
  const firsts = FIRST_FAMILIES.flatMap((f) => f.split(' '))
  const seen = new Set<string>()
  const people: Person[] = []
  for (let i = 0; people.length < size && i < size * 20; i++) {
    const first = pick(firsts)
    const last = pick(surnames)
    const middle = rand() < 0.3 ? pick([...MIDDLE]) : undefined
    const key = `${first} ${middle ?? ''} ${last}`
    // Namesakes exist, but rarely: one in fifty keeps a duplicate whole name, told apart by its unit.
    if (seen.has(key) && rand() > 0.02) continue
    seen.add(key)
    const p: Person = { contactId: `p${String(people.length).padStart(6, '0')}`, first, last, aliases: [] }
    if (middle) p.middle = middle
    if (rand() < 0.35) p.company = pick(COMPANIES)
    if (rand() < 0.6) p.unit = String(100 + Math.floor(rand() * 900))
    // Some people go by a name nobody could guess: the directory knows it as an alias.
    if (rand() < 0.05) p.aliases.push(pick(['Skip', 'Buzz', 'Kiki', 'Dee', 'Ace']))
    people.push(p)
  }
  return people
}

/**
 * The same people with most surnames drawn from `count` made-up ones instead of the confusable
 * families: a directory with the many distinct name words of a real one (a few thousand), where
 * finding the words like a printed one is a search, not a scan of a few hundred.
 */
export function withManySurnames(people: Person[], count = 8000, share = 0.7, seed = 3): Person[] {
  const rand = seeded(seed)
  const syllables = [
    'ka',
    'lo',
    'mer',
    'vin',
    'tor',
    'sa',
    'ben',
    'rik',
    'dal',
    'ost',
    'hen',
    'mu',
    'zel',
    'pra',
    'gu',
    'wen',
  ]
  const made = Array.from({ length: count }, () => {
    let s = ''
    for (let i = 2 + Math.floor(rand() * 2); i > 0; i--) s += syllables[Math.floor(rand() * syllables.length)]
    return s[0]!.toUpperCase() + s.slice(1)
  })
  return people.map((p) => (rand() < share ? { ...p, last: made[Math.floor(rand() * made.length)]! } : p))
}

export function directoryName(p: Person): string {
  return [p.first, p.middle ? `${p.middle}.` : undefined, p.last].filter(Boolean).join(' ')
}

export type NameFormat =
  'first-last' | 'last-comma-first' | 'initial-last' | 'nickname-last' | 'first-middle-last' | 'alias-last'

export interface LabelSpec {
  contactId: string
  format: NameFormat
  printedName: string
  company?: string
  street: string
  unit?: string
  city: string
  sender: string[]
  tracking: string
  upper: boolean
}

/** Labels for people of the directory, in every name format; seeded. */
export function makeLabels(people: Person[], count: number, seed = 6): LabelSpec[] {
  const rand = seeded(seed)
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(rand() * xs.length)]!
  const labels: LabelSpec[] = []
  for (let i = 0; i < count; i++) {
    const p = pick(people)
    const formats: NameFormat[] = ['first-last', 'first-last', 'last-comma-first', 'initial-last']
    if (NICKNAMES[p.first]) formats.push('nickname-last')
    if (p.middle) formats.push('first-middle-last')
    if (p.aliases.length > 0) formats.push('alias-last')
    const format = pick(formats)
    const printedName = printName(p, format)
    const upper = rand() < 0.7
    const spec: LabelSpec = {
      contactId: p.contactId,
      format,
      printedName: upper ? printedName.toUpperCase() : printedName,
      street: `${100 + Math.floor(rand() * 8900)} ${pick(STREETS)}`,
      city: pick(CITIES),
      sender: pick([
        ['SHIPPING DEPT', 'BIG BOX RETAIL', '1 COMMERCE WAY', 'SEATTLE WA 98101'],
        ['ORDER FULFILLMENT', 'PAPER SUPPLY CO', '77 MILL RD', 'DAYTON OH 45402'],
        ['RETURNS CENTER', 'GADGET HUB', '9 TECH PKWY', 'SAN JOSE CA 95134'],
      ]),
      tracking: upsNumber(rand),
      upper,
    }
    if (p.company && rand() < 0.6) spec.company = p.company
    if (p.unit && rand() < 0.7) spec.unit = pick(['STE', 'RM', 'MS', 'UNIT']) + ' ' + p.unit
    labels.push(spec)
  }
  return labels
}

function printName(p: Person, format: NameFormat): string {
  switch (format) {
    case 'first-last':
      return `${p.first} ${p.last}`
    case 'last-comma-first':
      return `${p.last}, ${p.first}`
    case 'initial-last':
      return `${p.first[0]}. ${p.last}`
    case 'nickname-last':
      return `${NICKNAMES[p.first]} ${p.last}`
    case 'first-middle-last':
      return `${p.first} ${p.middle} ${p.last}`
    case 'alias-last':
      return `${p.aliases[0]} ${p.last}`
    default:
      return format satisfies never
  }
}
