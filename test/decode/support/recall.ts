import { decodeScan } from '../../../src/decode/index.js'
import { GENERATED_FORMATS, humanReadable, rng, withWrongCheck, type GeneratedFormat } from './generate.js'

export interface Tally {
  numbers: number
  found: number
  invalid: number
  /** Invalid numbers (only the check character changed) accepted as the courier with a valid check. */
  invalidAccepted: number
}

export interface RecallReport {
  byCourier: Map<string, Tally>
  major: Tally
  all: Tally
}

const empty = (): Tally => ({ numbers: 0, found: 0, invalid: 0, invalidAccepted: 0 })

/** The expected courier is among the candidates, not contradicted by a failed check. */
function recognised(scan: string, f: GeneratedFormat): boolean {
  return decodeScan(scan).candidates.some((c) => f.carriers.includes(c.carrierId) && c.checkDigitValid !== false)
}

function acceptedAsValid(scan: string, f: GeneratedFormat): boolean {
  return decodeScan(scan).candidates.some((c) => f.carriers.includes(c.carrierId) && c.checkDigitValid === true)
}

/**
 * Recall on `perFormat` fresh numbers of every format (each also once in a human-readable form:
 * spaced, hyphenated or dotted groups, maybe lower case), and how many check-character changes slip
 * through as valid.
 */
export function measureRecall(seed: number, perFormat: number): RecallReport {
  const r = rng(seed)
  const byCourier = new Map<string, Tally>()
  const major = empty()
  const all = empty()
  for (const f of GENERATED_FORMATS) {
    const t = byCourier.get(f.courier) ?? empty()
    byCourier.set(f.courier, t)
    for (let i = 0; i < perFormat; i++) {
      const g = f.make(r)
      const tallies = f.major ? [t, major, all] : [t, all]
      for (const scan of [g.number, humanReadable(r, g.number)]) {
        const ok = recognised(scan, f)
        for (const x of tallies) {
          x.numbers++
          if (ok) x.found++
        }
      }
      const wrong = withWrongCheck(r, g)
      if (wrong === undefined) continue
      const slipped = acceptedAsValid(wrong, f)
      for (const x of tallies) {
        x.invalid++
        if (slipped) x.invalidAccepted++
      }
    }
  }
  return { byCourier, major, all }
}

const pct = (a: number, b: number) => (b === 0 ? '   n/a' : `${((100 * a) / b).toFixed(2).padStart(6)}%`)

export function formatRecall(report: RecallReport): string {
  const lines = ['courier           recall   invalid-accepted']
  const row = (name: string, t: Tally) =>
    `${name.padEnd(16)} ${pct(t.found, t.numbers)}   ${pct(t.invalidAccepted, t.invalid)}  (${t.numbers} numbers, ${t.invalid} invalid)`
  for (const [courier, t] of report.byCourier) lines.push(row(courier, t))
  lines.push(row('MAJOR', report.major), row('ALL', report.all))
  return lines.join('\n')
}
