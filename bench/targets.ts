import type { Figure } from './lib.js'

/** The figures the issues ask for, checked against what one run measured. */
export interface Target {
  text: string
  pass(f: Figure): boolean
}

const atLeast = (rps: number): Target => ({ text: `≥ ${rps} req/s`, pass: (f) => f.reqPerSec >= rps })
const ofCeiling = (ratio: number): Target => ({
  text: `≥ ${ratio} of ceiling`,
  pass: (f) => !!f.ceiling && f.reqPerSec / f.ceiling >= ratio,
})
const p99Below = (ms: number): Target => ({ text: `p99 < ${ms} ms`, pass: (f) => f.p99 < ms })
const all = (...ts: Target[]): Target => ({
  text: ts.map((t) => t.text).join(', '),
  pass: (f) => ts.every((t) => t.pass(f)),
})

export function receivingTargets(engine: 'postgres' | 'pglite'): Record<string, Target | undefined> {
  const pg = engine === 'postgres'
  return {
    token: atLeast(2_000),
    session: ofCeiling(0.7),
    // Issue 3 names PostgreSQL figures, and on PGlite only the add rate.
    add: pg ? all(atLeast(1_500), p99Below(50)) : atLeast(400),
    get: pg ? all(atLeast(4_000), ofCeiling(0.5), p99Below(50)) : undefined,
    byTracking: pg ? all(atLeast(4_000), p99Below(50)) : undefined,
    update: pg ? p99Below(50) : undefined,
    decode: ofCeiling(0.7),
  }
}

export function verdict(f: Figure, t: Target | undefined): string {
  if (!t) return ''
  if (f.errors + f.non2xx > 0) return `FAIL (${f.errors + f.non2xx} errors) — ${t.text}`
  return `${t.pass(f) ? 'ok' : 'MISS'} — ${t.text}`
}
