import type { CarrierCode } from '../tables/carriers.js'

/** The integrity checks the decoder applies, named once for the rules and the format table. */
export const CHECKS = {
  none: 'none (no check character defined)',
  gs1Mod10: 'GS1 mod 10 (weights 3,1 from the right)',
  upsMod10: 'mod 10, weights 1,2 from the left, letters folded to digits (UPS 1Z)',
  fedexMod11: 'mod 11 then mod 10, weights 1,3,7 from the right (FedEx)',
  mod7: 'mod 7 of the number before the check',
  s10: 'UPU S10 mod 11, weights 8,6,4,2,3,5,9,7',
  luhn: 'Luhn mod 10',
  mod37_36: 'ISO/IEC 7064 MOD 37,36 (check character 0-9A-Z)',
  mailroomLuhn32: 'Luhn mod 32 over Crockford base 32',
} as const

export type CheckName = keyof typeof CHECKS

/** One tracking-number format as the docs list it. */
export interface FormatDoc {
  carrier: CarrierCode
  name: string
  /** The shape, e.g. "1Z + shipper (6) + service (2) + package (7) + check". */
  layout: string
  check: CheckName
  /** Other carriers that read the same number (consolidators, the local post). */
  alsoRead?: readonly CarrierCode[]
}
