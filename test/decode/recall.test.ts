import { describe, expect, it } from 'vitest'
import { decodeScan } from '../../src/decode/index.js'
import { GENERATED_FORMATS, rng } from './support/generate.js'
import { formatRecall, measureRecall } from './support/recall.js'

describe('recall on fresh numbers generated from the catalogue rules (fixed seed)', () => {
  const report = measureRecall(20261124, 200)

  it("recognises ≥ 97% of the major carriers' numbers and ≥ 95% of all couriers'", () => {
    console.log(formatRecall(report))
    expect(report.major.found / report.major.numbers).toBeGreaterThanOrEqual(0.97)
    expect(report.all.found / report.all.numbers).toBeGreaterThanOrEqual(0.95)
    for (const [courier, t] of report.byCourier) expect(t.found / t.numbers, courier).toBeGreaterThanOrEqual(0.95)
  })

  it('accepts at most 2% of numbers whose check character alone was changed as valid', () => {
    expect(report.all.invalidAccepted / report.all.invalid).toBeLessThanOrEqual(0.02)
    expect(report.major.invalidAccepted / report.major.invalid).toBeLessThanOrEqual(0.02)
  })
})

describe('tracking links', () => {
  it("every candidate's trackingUrl, scanned as a QR code, names that carrier and number again", () => {
    const r = rng(7)
    for (const f of GENERATED_FORMATS) {
      for (let i = 0; i < 20; i++) {
        for (const c of decodeScan(f.make(r).number).candidates) {
          // dhl.com serves DHL Express and DHL eCommerce alike: its links name no carrier.
          if (c.trackingUrl === undefined || c.carrierId.startsWith('DHL')) continue
          // LaserShip's numbers are tracked on OnTrac's page, which names OnTrac.
          const owner = c.carrierId === 'LASERSHIP' ? 'ONTRAC' : c.carrierId
          const back = decodeScan(c.trackingUrl).candidates
          expect(
            back.some(
              (b) => (b.carrierId === c.carrierId || b.carrierId === owner) && b.trackingNumber === c.trackingNumber,
            ),
            `${f.format} ${c.trackingUrl}`,
          ).toBe(true)
        }
      }
    }
  })
})
