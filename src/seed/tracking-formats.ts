import { fedexCheckDigit, gs1CheckDigit, mod7CheckDigit, s10CheckDigit, upsCheckDigit } from '../decode/index.js'

/**
 * Real-format tracking numbers with valid check digits, for seed data and benchmarks. `n` (unique
 * per seed run, below 10^8) is embedded in the serial part so numbers never collide; the rest is random.
 */
export type Rand = () => number

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

export const TRACKING_FORMATS: Record<string, (rand: Rand, n: number) => string> = {
  UPS: (r, n) => {
    const body = `${alnum(r, 6)}${['01', '02', '03', '12', '13'][Math.floor(r() * 5)]}${serial(n, 8)}`.slice(0, 16)
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
  AMAZON: (r, n) => `TBA${digits(r, 4)}${serial(n, 8)}`,
  CANADA_POST: (_r, n) => `RR${serial(n, 8)}${s10CheckDigit(serial(n, 8))}CA`,
  ROYAL_MAIL: (_r, n) => `RB${serial(n, 8)}${s10CheckDigit(serial(n, 8))}GB`,
}
