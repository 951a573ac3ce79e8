import {
  fedexCheckDigit,
  gs1CheckDigit,
  iso7064Mod37_36CheckChar,
  luhnCheckDigit,
  mod7CheckDigit,
  s10CheckDigit,
  upsCheckDigit,
} from '../../decode/index.js'

/**
 * Real-format tracking numbers with valid check digits, for seed data and benchmarks: one format per
 * carrier of the built-in catalogue (migrations 0003, 0011) except MAILROOM, whose numbers the service
 * generates itself. `n` (unique per seed run, below 10^8) is embedded as an 8-digit serial at the
 * same place in formats of equal length and alphabet (FedEx and Purolator are both 12 digits), so
 * numbers never collide within a run; the rest is random.
 */
export type { Rand } from '../../platform/kit/random.js'
import type { Rand } from '../../platform/kit/random.js'

const digits = (rand: Rand, count: number) => {
  let s = ''
  for (let i = 0; i < count; i++) s += Math.floor(rand() * 10)
  return s
}
const ALNUM = 'ABCDEFGHJKLMNPRSTUVWXYZ0123456789'
const alnum = (rand: Rand, count: number) => {
  let s = ''
  for (let i = 0; i < count; i++) s += ALNUM[Math.floor(rand() * ALNUM.length)]
  return s
}
const serial = (n: number, width: number) => String(n).padStart(width, '0')

/**
 * The human-readable line of a DPD parcel label: destination postcode (7) + parcel number (14) +
 * service code (3) + ISO numeric country (3) + ISO 7064 MOD 37,36 check character over the 27 before
 * it. The tracking number is the parcel number, characters 8–21, as decoding the line yields it.
 */
export function dpdLabelLine(rand: Rand, n: number): string {
  const postcode = `D${digits(rand, 5)}`.padEnd(7, '0')
  const data = `${postcode}${digits(rand, 6)}${serial(n, 8)}${['101', '136', '327'][Math.floor(rand() * 3)]}276`
  return `${data}${iso7064Mod37_36CheckChar(data)}`
}

export const TRACKING_FORMATS: Record<string, (rand: Rand, n: number) => string> = {
  // "1Z" + shipper (6, here 5 to fit the serial) + service (2) + package (7, here 8) + check: 18 characters.
  UPS: (r, n) => {
    const body = `${alnum(r, 5)}${['01', '02', '03', '12', '13'][Math.floor(r() * 5)]}${serial(n, 8)}`
    return `1Z${body}${upsCheckDigit(body)}`
  },
  FEDEX: (r, n) => {
    const body = `${digits(r, 3)}${serial(n, 8)}`
    return `${body}${fedexCheckDigit(body)}`
  },
  USPS: (r, n) => {
    const body = `9400${digits(r, 9)}${serial(n, 8)}`
    return `${body}${gs1CheckDigit(body)}`
  },
  DHL_EXPRESS: (r, n) => {
    const body = `${digits(r, 1)}${serial(n, 8)}`
    return `${body}${mod7CheckDigit(body)}`
  },
  // "GM" + 18 digits; the last a GS1 mod 10 over the others, as DHL eCommerce's own numbers carry.
  DHL_ECOMMERCE: (r, n) => {
    const body = `${digits(r, 9)}${serial(n, 8)}`
    return `GM${body}${gs1CheckDigit(body)}`
  },
  AMAZON: (r, n) => `TBA${digits(r, 4)}${serial(n, 8)}`,
  // "C" or "D" + 13 digits + a check computed as for UPS over the 13 digits, "4" (C) or "5" (D)
  // put before them unless they already start with it.
  ONTRAC: (r, n) => {
    const letter = r() < 0.5 ? 'C' : 'D'
    const lead = letter === 'C' ? '4' : '5'
    const digits13 = `${digits(r, 5)}${serial(n, 8)}`
    return `${letter}${digits13}${upsCheckDigit(digits13.startsWith(lead) ? digits13 : lead + digits13)}`
  },
  // "1LS7" + 1 or 2 + 10 digits; LaserShip numbers carry no check character.
  LASERSHIP: (r, n) => `1LS7${r() < 0.5 ? '1' : '2'}${digits(r, 2)}${serial(n, 8)}`,
  CANADA_POST: (_r, n) => `RR${serial(n, 8)}${s10CheckDigit(serial(n, 8))}CA`,
  // 12-digit PIN, Luhn; Purolator's PINs begin with 0–5 (6–9 read as FedEx only).
  PUROLATOR: (r, n) => {
    const body = `${Math.floor(r() * 6)}${digits(r, 2)}${serial(n, 8)}`
    return `${body}${luhnCheckDigit(body)}`
  },
  ROYAL_MAIL: (_r, n) => `RB${serial(n, 8)}${s10CheckDigit(serial(n, 8))}GB`,
  DPD: (r, n) => dpdLabelLine(r, n).slice(7, 21),
  // The couriers of migration 0011; only Old Dominion's PRO numbers carry a check (Luhn).
  CANPAR: (r, n) => `${'CDKLSUXZ'[Math.floor(r() * 8)]}${digits(r, 13)}${serial(n, 8)}`,
  OLD_DOMINION: (_r, n) => `80${serial(n, 8)}${luhnCheckDigit(`80${serial(n, 8)}`)}`,
  SPEE_DEE: (r, n) => `SP${digits(r, 10)}${serial(n, 8)}`,
  YODEL: (r, n) => `JJD${digits(r, 8)}${serial(n, 8)}`,
  YUNEXPRESS: (r, n) => `YT${digits(r, 8)}${serial(n, 8)}`,
  GOFO: (r, n) => `GFUS${digits(r, 6)}${serial(n, 8)}`,
  LANDMARK: (_r, n) => `LTN${serial(n, 8)}N1`,
}
