import { fuzzTarget, runFuzz } from './fuzz-target.js'

/**
 * `npm run fuzz [-- COUNT [SEED]]`: the long run (default 100,000 requests) of the schema-driven
 * fuzz test over every operation of /openapi.json. Prints the answers by status and every answer
 * that is a 5xx or an error body off the contract; exits 1 when there is one.
 */
const count = Number(process.argv[2] ?? 100_000)
const seed = Number(process.argv[3] ?? Date.now() % 1_000_000)
const started = Date.now()
const target = await fuzzTarget()
process.stdout.write(`fuzz: ${target.operations.length} operations, ${count} requests, seed ${seed}\n`)
let last = 0
const report = await runFuzz(target, count, seed, (r) => {
  if (r.sent + r.unsendable - last >= 10_000) {
    last = r.sent + r.unsendable
    process.stdout.write(
      `  ${last} requests, ${r.failures.length} failures, ${Math.round((Date.now() - started) / 1000)} s\n`,
    )
  }
})
await target.close()
const statuses = [...report.byStatus].sort(([a], [b]) => a - b)
process.stdout.write(
  `\nanswered ${report.sent} (${report.unsendable} not sendable by the client) in ${Math.round((Date.now() - started) / 1000)} s\n`,
)
for (const [status, n] of statuses) process.stdout.write(`  ${status}: ${n}\n`)
const fivexx = statuses.filter(([s]) => s >= 500).reduce((n, [, c]) => n + c, 0)
process.stdout.write(
  `5xx: ${fivexx}; error bodies off the contract: ${report.failures.filter((f) => !f.problems[0]!.startsWith('status')).length}\n`,
)
// A few examples of each kind of failure, 5xx first.
const kinds = new Map<string, string[]>()
for (const f of report.failures) {
  const kind = f.problems.join('; ').slice(0, 60)
  kinds.set(kind, [...(kinds.get(kind) ?? []), f.request])
}
for (const [kind, requests] of [...kinds].sort(
  ([a], [b]) => Number(b.startsWith('status')) - Number(a.startsWith('status')),
)) {
  process.stdout.write(
    `\n${kind} (${requests.length})\n${requests
      .slice(0, 3)
      .map((r) => `  ${r}\n`)
      .join('')}`,
  )
}
process.exit(report.failures.length ? 1 : 0)
