import type { Rand } from '../../platform/kit/random.js'
import { TRACKING_FORMATS } from './tracking-formats.js'

// The names, companies and fields the demo seed draws from.
export const FIRST = [
  'Ada',
  'Alan',
  'Grace',
  'Edsger',
  'Barbara',
  'Donald',
  'Margaret',
  'Ken',
  'Frances',
  'Dennis',
  'Radia',
  'John',
  'Hedy',
  'Tim',
  'Katherine',
  'Linus',
  'Sophie',
  'Niklaus',
  'Shafi',
  'Leslie',
  'Maria',
  'Wei',
  'Aisha',
  'Carlos',
  'Yuki',
  'Olga',
  'Kwame',
  'Priya',
  'Lars',
  'Fatima',
]
// Surnames are built from syllables so a facility's thousands of contacts mostly have distinct names, as real ones do.
export const SYLLABLES = [
  'lo',
  've',
  'la',
  'ce',
  'tu',
  'ring',
  'hop',
  'per',
  'dijk',
  'stra',
  'lis',
  'kov',
  'knu',
  'th',
  'ham',
  'il',
  'ton',
  'ber',
  'ner',
  'son',
  'mar',
  'ley',
  'wir',
  'gold',
  'was',
  'ser',
  'ka',
  'mi',
  'no',
  'ra',
]
export const surname = (rand: Rand) => {
  const n = 2 + Math.floor(rand() * 2)
  let s = ''
  for (let i = 0; i < n; i++) s += SYLLABLES[Math.floor(rand() * SYLLABLES.length)]
  return s[0]!.toUpperCase() + s.slice(1)
}
export const COMPANIES = ['Acme Corp', 'Globex', 'Initech', 'Umbrella', 'Hooli', 'Stark Industries', null, null]
// Senders are mostly the shops and suppliers a facility hears from again and again.
export const SENDER_NAMES = [
  'Acme Supplies',
  'Globex Shipping',
  'Northwind Traders',
  'Contoso Retail',
  'Fabrikam Parts',
  'Tailspin Toys',
  'Wide World Importers',
  'Litware Books',
  'Proseware Labs',
  'Adventure Works',
]
export const CARRIERS = Object.keys(TRACKING_FORMATS)
/** Where a package's story ends, with how often: most are collected, some wait, a few are damaged. */
export const ENDINGS: Array<[string[], number]> = [
  [['RECEIVED', 'READY_FOR_PICKUP', 'PICKED_UP'], 0.4],
  [['RECEIVED', 'OUT_FOR_DELIVERY', 'DELIVERED'], 0.25],
  [['RECEIVED'], 0.1],
  [['RECEIVED', 'READY_FOR_PICKUP'], 0.1],
  [['RECEIVED', 'IN_LOCKER'], 0.06],
  [['RECEIVED', 'DAMAGED'], 0.02],
  [['RECEIVED', 'RETURNED_TO_SENDER'], 0.02],
  [['RECEIVED', 'READY_FOR_PICKUP', 'PICKED_UP', 'ARCHIVED'], 0.05],
]
export const LOCKER_BANKS = ['North Lobby', 'South Lobby', 'Garage', 'Annex']
/** The subscription's custom fields, and how often a package carries a value for each. */
export const CUSTOM_FIELDS: Array<{
  name: string
  dataType: 'TEXT' | 'LIST'
  options?: string[]
  share: number
  value: (rand: Rand, i: number) => string
}> = [
  {
    name: 'Department',
    dataType: 'LIST',
    options: ['Finance', 'Engineering', 'Legal', 'Facilities', 'Research', 'Marketing'],
    share: 0.6,
    value: (r) => ['Finance', 'Engineering', 'Legal', 'Facilities', 'Research', 'Marketing'][Math.floor(r() * 6)]!,
  },
  { name: 'PO Number', dataType: 'TEXT', share: 0.3, value: (_r, i) => `PO-${String(i).padStart(8, '0')}` },
  { name: 'Cost Center', dataType: 'TEXT', share: 0.2, value: (r) => `CC${100 + Math.floor(r() * 50)}` },
]

export const COMMENTS = [
  'Handle with care',
  'Fragile',
  'Perishable: refrigerate',
  'Oversized, at the loading dock',
  'Box dented on arrival',
  'Signature required',
]
