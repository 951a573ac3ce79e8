import { readdirSync, readFileSync } from 'node:fs'
import path from 'node:path'

/**
 * `node --import tsx bench/profile-summary.ts DIR`: where the CPU of each V8 profile in DIR went
 * (BENCH_CPU_PROF=DIR npm run bench writes one per process it started), by package: a
 * dependency under node_modules, a folder of src/, a Node module, or V8's own work (garbage
 * collection, idle). Code without a file (ajv's and fast-json-stringify's compiled functions)
 * counts for the nearest caller that has one. This is how "why is the authenticated GET this far
 * from the bare route?" is answered with numbers (docs/benchmarks.md).
 */
interface CpuProfile {
  nodes: Array<{ id: number; callFrame: { url: string; functionName: string }; children?: number[] }>
  samples: number[]
  timeDeltas: number[]
}

function owner(url: string, fn: string): string | undefined {
  if (url === '') return fn.startsWith('(') ? fn : undefined
  const dep = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(url)
  if (dep) return dep[1]
  const ours = /\/(src|bench|test)\/(.+)\/[^/]+$/.exec(url)
  if (ours) return `${ours[1]}/${ours[2]!.split('/').slice(0, 2).join('/')}`
  if (url.startsWith('node:')) return url.replace(/^node:(internal\/)?/, 'node:').split('/')[0]
  return url
}

const dir = process.argv[2]
if (!dir) throw new Error('usage: bench/profile-summary.ts DIR')
for (const file of readdirSync(dir).filter((f) => f.endsWith('.cpuprofile'))) {
  const profile = JSON.parse(readFileSync(path.join(dir, file), 'utf8')) as CpuProfile
  const byId = new Map(profile.nodes.map((n) => [n.id, n]))
  const parent = new Map<number, number>()
  for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id)
  const totals = new Map<string, number>()
  profile.samples.forEach((id, i) => {
    let at: number | undefined = id
    let who: string | undefined
    while (at !== undefined && who === undefined) {
      const frame = byId.get(at)!.callFrame
      who = owner(frame.url, frame.functionName)
      at = parent.get(at)
    }
    const key = who ?? '(unattributed)'
    totals.set(key, (totals.get(key) ?? 0) + (profile.timeDeltas[i] ?? 0))
  })
  const busy = [...totals].filter(([k]) => k !== '(idle)').reduce((a, [, t]) => a + t, 0)
  console.log(`\n${file}: ${(busy / 1e6).toFixed(1)} s busy (idle ${((totals.get('(idle)') ?? 0) / 1e6).toFixed(1)} s)`)
  for (const [k, t] of [...totals]
    .filter(([k]) => k !== '(idle)')
    .sort((a, b) => b[1] - a[1])
    .slice(0, 25))
    console.log(`${((100 * t) / busy).toFixed(1).padStart(5)}%  ${k}`)
}
