import { describe, expect, it } from 'vitest'
import { formatRecall, measureRecall } from './support/recall.js'

describe('recall on fresh numbers generated from the catalogue rules (fixed seed)', () => {
  const report = measureRecall(20261124, 200)

  it('recognises ≥ 97% of the major carriers\' numbers and ≥ 95% of all couriers\'', () => {
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
