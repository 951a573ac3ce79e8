import { describe, expect, it } from 'vitest'
import { decodeScan } from '../../src/decode/index.js'
import { compactNumber } from '../../src/decode/tracking/identify.js'
import { CATALOGUE_EXAMPLES } from './support/catalogue-examples.js'

/** The candidates of `carriers` that the number does not contradict (check passed, or none defined). */
function accepted(scan: string, carriers: readonly string[]) {
  return decodeScan(scan).candidates.filter((c) => carriers.includes(c.carrierId) && c.checkDigitValid !== false)
}

describe('every format of the public catalogue, on its own example numbers', () => {
  describe.each(CATALOGUE_EXAMPLES.map((e) => [`${e.courier} / ${e.format}`, e] as const))('%s', (_, e) => {
    it.each(e.valid.map((n) => [n]))('valid %j is read as its carrier', (n) => {
      expect(accepted(n, e.carriers), n).not.toEqual([])
    })

    // An example the catalogue lists as invalid for this format may be a valid number of another of
    // the courier's formats (a Purolator 12-digit PIN is no "alpha + 9" PIN): those are left out.
    const otherValid = new Set(
      CATALOGUE_EXAMPLES.filter((x) => x.courier === e.courier).flatMap((x) => x.valid.map(compactNumber)),
    )
    const invalid = e.invalid.filter((n) => !otherValid.has(compactNumber(n)))
    if (invalid.length > 0) {
      it.each(invalid.map((n) => [n]))('invalid %j is not accepted as its carrier', (n) => {
        expect(accepted(n, e.carriers), n).toEqual([])
      })
    }
  })
})
