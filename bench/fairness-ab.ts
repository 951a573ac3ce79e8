import { spawnSync } from 'node:child_process'
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import pg from 'pg'
import { ROOT } from './lib.js'

/**
 * Issue 26.10: what each fairness mechanism earns. `DATABASE_URL=… node --import tsx bench/fairness-ab.ts`
 * seeds the noisy-neighbour database once, then runs bench:neighbour with every mechanism on and with
 * each one off (FAIRNESS_OFF), in alternating order over FAIRNESS_AB_ROUNDS rounds (default 2), and
 * prints the quiet tenant's p99 against its idle p99 for each. The neighbour's loads and sizes are
 * bench:neighbour's (NEIGHBOUR_PACKAGES, NEIGHBOUR_LOADS, BENCH_SECONDS…).
 */
const admin = process.env.DATABASE_URL
if (!admin) {
  console.error('fairness-ab needs DATABASE_URL (an admin URL of a PostgreSQL server)')
  process.exit(2)
}
const variants = (process.env.FAIRNESS_AB ?? 'none,tenant-gate,heavy-slots,time-share,presence,refusal-pacing').split(
  ',',
)
const rounds = Number(process.env.FAIRNESS_AB_ROUNDS ?? 2)
const dir = mkdtempSync(path.join(tmpdir(), 'mailroom-fairness-'))
const keep = path.join(dir, 'kept.json')
const results = new Map<string, string[]>(variants.map((v) => [v, []]))
try {
  for (let round = 0; round < rounds; round++) {
    const order = round % 2 === 0 ? variants : [...variants].reverse()
    for (const off of order) {
      const r = spawnSync(process.execPath, ['--import', 'tsx', 'bench/neighbour.bench.ts'], {
        cwd: ROOT,
        env: { ...process.env, NEIGHBOUR_KEEP: keep, FAIRNESS_OFF: off === 'none' ? '' : off },
        encoding: 'utf8',
        maxBuffer: 1 << 26,
      })
      const line = r.stdout.split('\n').find((l) => l.startsWith('NEIGHBOUR_RESULT '))
      if (!line) {
        results.get(off)!.push(`failed (${r.status})`)
        console.error(r.stderr.slice(-2000))
        continue
      }
      const { idle, loaded, ratio } = JSON.parse(line.slice('NEIGHBOUR_RESULT '.length)) as {
        idle: { p99: number; reqPerSec: number }
        loaded: { p99: number; reqPerSec: number }
        ratio: number
      }
      const figure = `${ratio.toFixed(2)}x (p99 ${idle.p99} → ${loaded.p99} ms, ${idle.reqPerSec} → ${loaded.reqPerSec} req/s)`
      results.get(off)!.push(figure)
      console.log(`round ${round + 1}, FAIRNESS_OFF=${off}: quiet p99 ${figure}`)
    }
  }
  console.log('\nquiet tenant p99 under the neighbour ÷ idle p99 (≤ 2x is the target), per round:')
  console.table(
    variants.map((v) => ({
      FAIRNESS_OFF: v,
      ...Object.fromEntries(results.get(v)!.map((f, i) => [`round ${i + 1}`, f])),
    })),
  )
} finally {
  try {
    const { name } = JSON.parse(readFileSync(keep, 'utf8')) as { name: string }
    const c = new pg.Client({ connectionString: admin })
    await c.connect()
    await c.query(`drop database if exists "${name}" with (force)`)
    await c.end()
  } catch {
    // nothing was seeded
  }
  rmSync(dir, { recursive: true, force: true })
}
