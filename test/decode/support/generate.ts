/**
 * Fresh tracking numbers generated from the public catalogue's rules (tracking_number_data): random
 * serials per format with correct check characters. Used by the recall test and the decode bench;
 * never the catalogue's own examples.
 */
import {
  fedexCheckDigit,
  gs1CheckDigit,
  iso7064Mod37_36CheckChar,
  luhnCheckDigit,
  mod7CheckDigit,
  s10CheckDigit,
  upsCheckDigit,
} from '../../../src/decode/index.js'
import { S10_POSTS } from '../../../src/decode/tables/s10-posts.js'
import { mulberry32, type Rand } from '../../../src/platform/kit/random.js'

export type Rng = Rand

/** Deterministic generated numbers for a seed (a failure can be replayed). */
export const rng: (seed: number) => Rng = mulberry32

const DIGITS = '0123456789'
const LETTERS = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ'
const ALNUM = DIGITS + LETTERS

const pick = <T>(r: Rng, xs: readonly T[] | string): T => xs[Math.floor(r() * xs.length)] as T
const chars = (r: Rng, alphabet: string, n: number): string => {
  let s = ''
  for (let i = 0; i < n; i++) s += pick<string>(r, alphabet)
  return s
}
const digits = (r: Rng, n: number) => chars(r, DIGITS, n)

/** A generated number; `check` is the index of its check character (absent: the format has none). */
export interface Generated {
  number: string
  check?: number
  /** The characters the check character is drawn from. */
  alphabet?: string
}

export interface GeneratedFormat {
  /** The courier group the targets are measured on (tracking_number_data's courier). */
  courier: string
  format: string
  /** Carriers that count as the right answer (an S10 item: its post or a local post). */
  carriers: readonly string[]
  major: boolean
  make(r: Rng): Generated
}

const checked = (number: string, alphabet = DIGITS): Generated => ({ number, check: number.length - 1, alphabet })

/** USPS PIC body after the channel: service type (3) + mailer id + serial of a given total length. */
function picBody(r: Rng, channel: string, total: 22 | 26 | 30, mid9: boolean): string {
  const stc = digits(r, 3)
  const mid = mid9 ? `9${digits(r, 8)}` : `${pick(r, '012345678')}${digits(r, 5)}`
  return `${channel}${stc}${mid}${digits(r, total - 1 - 5 - mid.length)}`
}

function routed(r: Rng, pic: string, zip4Allowed: boolean): string {
  if (r() < 0.5) return pic
  const zip = zip4Allowed && r() < 0.5 ? digits(r, 9) : digits(r, 5)
  return `420${zip}${pic}`
}

const gs1 = (body: string) => `${body}${gs1CheckDigit(body)}`
const S10_COUNTRIES = [...S10_POSTS.keys()]
const LOCAL_POSTS = ['USPS', 'CANADA_POST', 'ROYAL_MAIL'] as const

export const GENERATED_FORMATS: readonly GeneratedFormat[] = [
  {
    courier: 'ups',
    format: 'ups',
    carriers: ['UPS'],
    major: true,
    make: (r) => {
      const serial = chars(r, ALNUM, 6) + chars(r, ALNUM, 2) + chars(r, ALNUM, 7)
      return checked(`1Z${serial}${upsCheckDigit(serial)}`)
    },
  },
  {
    courier: 'ups',
    format: 'ups-waybill',
    carriers: ['UPS'],
    major: true,
    make: (r) => {
      const serial = digits(r, 9)
      return checked(`${pick(r, 'AHJKTV')}${serial}${upsCheckDigit(serial)}`)
    },
  },
  {
    courier: 'fedex',
    format: 'fedex_12',
    carriers: ['FEDEX'],
    major: true,
    make: (r) => {
      const s = digits(r, 11)
      return checked(`${s}${fedexCheckDigit(s)}`)
    },
  },
  {
    courier: 'fedex',
    format: 'fedex_34',
    carriers: ['FEDEX'],
    major: true,
    make: (r) => {
      const serial = digits(r, 13)
      return checked(`${pick(r, '012345678')}${digits(r, 14)}${digits(r, 5)}${serial}${fedexCheckDigit(serial)}`)
    },
  },
  {
    courier: 'fedex',
    format: 'fedex_astra_32',
    carriers: ['FEDEX'],
    major: true,
    make: (r) => {
      const serial = digits(r, 11)
      const n = `3${digits(r, 15)}${serial}${fedexCheckDigit(serial)}${digits(r, 4)}`
      return { number: n, check: 27, alphabet: DIGITS }
    },
  },
  {
    courier: 'fedex',
    format: 'fedex_ground',
    carriers: ['FEDEX'],
    major: true,
    make: (r) => checked(gs1(digits(r, 14))),
  },
  {
    courier: 'fedex',
    format: 'fedex_ground_sscc_18',
    carriers: ['FEDEX'],
    major: true,
    make: (r) => {
      const serial = digits(r, 15)
      return checked(`${pick(r, ['00', '01', '02', '04'])}${serial}${gs1CheckDigit(serial)}`)
    },
  },
  {
    courier: 'fedex',
    format: 'fedex_ground_96',
    carriers: ['FEDEX'],
    major: true,
    make: (r) => {
      const serial = digits(r, 14)
      return checked(`96${digits(r, 2)}${digits(r, 3)}${serial}${gs1CheckDigit(serial)}`)
    },
  },
  {
    courier: 'fedex',
    format: 'fedex_ground_gsn',
    carriers: ['FEDEX'],
    major: true,
    make: (r) => {
      const serial = digits(r, 13)
      return checked(
        `96${pick(r, ['22', '32'])}${digits(r, 5)}${digits(r, 10)}${digits(r, 1)}${serial}${fedexCheckDigit(serial)}`,
      )
    },
  },
  { courier: 'usps', format: 'usps_20', carriers: ['USPS'], major: true, make: (r) => checked(gs1(digits(r, 19))) },
  {
    courier: 'usps',
    format: 'usps_impb_n',
    carriers: ['USPS'],
    major: true,
    make: (r) => {
      const mid9 = r() < 0.5
      const total = mid9 ? pick(r, [22, 26, 30] as const) : pick(r, [22, 26] as const)
      const pic = gs1(picBody(r, '94', total, mid9))
      return checked(total === 30 ? pic : routed(r, pic, total === 22))
    },
  },
  {
    courier: 'usps',
    format: 'usps_legacy',
    carriers: ['USPS'],
    major: true,
    make: (r) => {
      const body = `${digits(r, 2)}${digits(r, 9)}${digits(r, 8)}`
      const with91 = r() < 0.5
      const number = with91 ? gs1(`91${body}`) : `${body}${gs1CheckDigit(body.startsWith('91') ? body : `91${body}`)}`
      return checked(routed(r, number, true))
    },
  },
  {
    courier: 'usps',
    format: 'usps_impb_c',
    carriers: ['USPS'],
    major: true,
    make: (r) => {
      const channel = pick(r, ['92', '93', '95'])
      const mid9 = channel === '92' || (channel === '95' && r() < 0.5)
      const total = pick(r, [22, 26] as const)
      return checked(routed(r, gs1(picBody(r, channel, total, mid9)), total === 22))
    },
  },
  {
    courier: 's10',
    format: 's10',
    carriers: LOCAL_POSTS,
    major: true,
    make: (r) => {
      const serial = digits(r, 8)
      const n = `${chars(r, LETTERS, 2)}${serial}${s10CheckDigit(serial)}${pick(r, S10_COUNTRIES)}`
      return { number: n, check: 10, alphabet: DIGITS }
    },
  },
  {
    courier: 'dhl',
    format: 'dhl_express',
    carriers: ['DHL_EXPRESS'],
    major: true,
    make: (r) => {
      const s = digits(r, pick(r, [9, 10]))
      return { number: `${s}${mod7CheckDigit(s)}`, check: s.length, alphabet: '0123456' }
    },
  },
  {
    courier: 'dhl',
    format: 'dhl_express_piece_id',
    carriers: ['DHL_EXPRESS'],
    major: true,
    make: (r) => ({ number: `J${chars(r, LETTERS, pick(r, [2, 3]))}${digits(r, pick(r, [9, 10]))}` }),
  },
  {
    courier: 'dhl',
    format: 'dhl_ecommerce',
    carriers: ['DHL_ECOMMERCE'],
    major: true,
    make: (r) => ({
      number: `${pick(r, ['GM', 'LX', 'RX', 'UV', 'CN', 'SG', 'TH', 'IN', 'HK', 'MY'])}${digits(r, 1)}${chars(r, ALNUM, 9 + Math.floor(r() * 30))}`,
    }),
  },
  {
    courier: 'dhl',
    format: 'dhl_ecommerce_14',
    carriers: ['DHL_ECOMMERCE'],
    major: true,
    make: (r) => ({ number: digits(r, 14) }),
  },
  {
    courier: 'amazon',
    format: 'amazon_logistics',
    carriers: ['AMAZON'],
    major: true,
    make: (r) => ({ number: `TB${pick(r, 'ACM')}${digits(r, 12)}` }),
  },
  {
    courier: 'amazon',
    format: 'amazon_international',
    carriers: ['AMAZON'],
    major: true,
    make: (r) => ({ number: `${pick(r, 'AFC')}${digits(r, 10)}` }),
  },
  {
    courier: 'ontrac',
    format: 'ontrac',
    carriers: ['ONTRAC'],
    major: true,
    make: (r) => {
      const letter = pick<string>(r, 'CD')
      const lead = letter === 'C' ? '4' : '5'
      const serial = digits(r, 13)
      const data = serial.startsWith(lead) ? serial : lead + serial
      return checked(`${letter}${serial}${upsCheckDigit(data)}`)
    },
  },
  {
    courier: 'lasership',
    format: 'lasership_lx',
    carriers: ['LASERSHIP'],
    major: true,
    make: (r) => ({ number: `L${pick(r, 'AIEHNX')}${pick(r, '123')}${digits(r, 7)}` }),
  },
  {
    courier: 'lasership',
    format: 'lasership_1ls7',
    carriers: ['LASERSHIP'],
    major: true,
    make: (r) => ({ number: `1LS7${pick(r, '12')}${digits(r, 10)}` }),
  },
  {
    courier: 'lasership',
    format: 'lasership_1ls7_18',
    carriers: ['LASERSHIP'],
    major: true,
    make: (r) => ({ number: `1LS7${pick(r, '12')}${digits(r, 2)}01${pick(r, '1234')}${digits(r, 6)}-1` }),
  },
  {
    courier: 'lasership',
    format: 'lasership_1lscx',
    carriers: ['LASERSHIP'],
    major: true,
    make: (r) => ({ number: `1LSCX${chars(r, ALNUM, 10)}` }),
  },
  {
    courier: 'canada_post',
    format: 'canada_post',
    carriers: ['CANADA_POST'],
    major: true,
    make: (r) => checked(gs1(digits(r, 15))),
  },
  {
    courier: 'purolator',
    format: 'purolator_numeric',
    carriers: ['PUROLATOR'],
    major: true,
    make: (r) => {
      const s = `${pick(r, '012345')}${digits(r, 10)}`
      return checked(`${s}${luhnCheckDigit(s)}`)
    },
  },
  {
    courier: 'purolator',
    format: 'purolator_alpha',
    carriers: ['PUROLATOR'],
    major: true,
    make: (r) => ({ number: `${chars(r, LETTERS, 3)}${digits(r, 9)}` }),
  },
  {
    courier: 'dpd',
    format: 'dpd',
    carriers: ['DPD'],
    major: true,
    make: (r) => {
      const data = digits(r, 27)
      return checked(`${data}${iso7064Mod37_36CheckChar(data)}`, ALNUM)
    },
  },
  {
    courier: 'dpd',
    format: 'dpd_14',
    carriers: ['DPD'],
    major: true,
    make: (r) => {
      const data = digits(r, 14)
      return checked(`${data}${iso7064Mod37_36CheckChar(data)}`, ALNUM)
    },
  },
  {
    courier: 'canpar',
    format: 'canpar_22',
    carriers: ['CANPAR'],
    major: false,
    make: (r) => ({ number: `${pick(r, 'CDKLSUXZ')}${digits(r, 21)}` }),
  },
  {
    courier: 'old_dominion',
    format: 'old_dominion',
    carriers: ['OLD_DOMINION'],
    major: false,
    make: (r) => {
      const s = `${pick(r, ['777', '778', '072', '780'])}${digits(r, 7)}`
      return checked(`${s}${luhnCheckDigit(s)}`)
    },
  },
  {
    courier: 'old_dominion',
    format: 'old_dominion_guaranteed',
    carriers: ['OLD_DOMINION'],
    major: false,
    make: (r) => {
      const s = `80${digits(r, 8)}`
      return checked(`${s}${luhnCheckDigit(s)}`)
    },
  },
  {
    courier: 'speedee',
    format: 'speedee',
    carriers: ['SPEE_DEE'],
    major: false,
    make: (r) => ({ number: `SP${digits(r, 18)}` }),
  },
  {
    courier: 'yodel',
    format: 'yodel',
    carriers: ['YODEL'],
    major: false,
    make: (r) => ({ number: `${pick(r, ['JD', 'JJD'])}${digits(r, 16)}` }),
  },
  {
    courier: 'yunexpress',
    format: 'yunexpress',
    carriers: ['YUNEXPRESS'],
    major: false,
    make: (r) => ({ number: `YT${digits(r, 16)}` }),
  },
  {
    courier: 'gofo',
    format: 'gofo_us',
    carriers: ['GOFO'],
    major: false,
    make: (r) => ({ number: `GFUS${digits(r, 14)}` }),
  },
  {
    courier: 'landmark',
    format: 'landmark_global',
    carriers: ['LANDMARK'],
    major: false,
    make: (r) => ({ number: `LTN${digits(r, 8)}N1` }),
  },
]

/** The same number with its check character replaced by another of its alphabet. */
export function withWrongCheck(r: Rng, g: Generated): string | undefined {
  if (g.check === undefined || g.alphabet === undefined) return undefined
  const current = g.number.charAt(g.check)
  const others = [...g.alphabet].filter((c) => c !== current)
  return g.number.slice(0, g.check) + pick(r, others) + g.number.slice(g.check + 1)
}

/** How a clerk or a label prints it: groups split by spaces, hyphens or dots, maybe lower case. */
export function humanReadable(r: Rng, n: string): string {
  const sep = pick(r, [' ', '-', '.', '  '])
  const size = pick(r, [3, 4, 5])
  const groups: string[] = []
  for (let i = 0; i < n.length; i += size) groups.push(n.slice(i, i + size))
  const out = groups.join(sep)
  return r() < 0.5 ? out.toLowerCase() : out
}
