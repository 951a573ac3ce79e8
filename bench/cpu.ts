import { readdirSync, readFileSync } from 'node:fs'

/**
 * Where a bench's time goes: the CPU (user + system) each group of processes used over a window,
 * read from /proc (Linux). On a 2-core machine the service, PostgreSQL and the load generators share
 * the cores, so a latency figure means little without knowing who held them.
 */
const TICKS_PER_SECOND = 100

function ticks(pid: number): number {
  try {
    // Fields after the command name, which may hold spaces: utime and stime are the 12th and 13th.
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8')
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ')
    return Number(fields[11]) + Number(fields[12])
  } catch {
    return 0
  }
}

/** Every PostgreSQL server process of this machine (postmaster, backends, background workers). */
export function postgresPids(): number[] {
  const pids: number[] = []
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue
    try {
      if (readFileSync(`/proc/${entry}/comm`, 'utf8').trim() === 'postgres') pids.push(Number(entry))
    } catch {
      // gone meanwhile
    }
  }
  return pids
}

/** Busy ticks of the whole machine (every process, this bench's and anyone else's). */
function machineTicks(): number {
  const [, user, nice, system, , , irq, softirq, steal] = readFileSync('/proc/stat', 'utf8')
    .split('\n')[0]!
    .trim()
    .split(/\s+/)
    .map(Number)
  return user! + nice! + system! + irq! + softirq! + steal!
}

export type CpuGroups = Record<string, () => number[]>

/** Starts a window; the returned function ends it and gives each group's share of the machine's cores. */
export function cpuWindow(
  groups: CpuGroups,
  cores: number,
): () => Array<{ group: string; cpuSeconds: number; ofMachine: string }> {
  const started = performance.now()
  const before = new Map<string, Map<number, number>>()
  for (const [group, pids] of Object.entries(groups)) before.set(group, new Map(pids().map((p) => [p, ticks(p)])))
  const machineBefore = machineTicks()
  return () => {
    const wall = (performance.now() - started) / 1000
    const row = (group: string, used: number) => ({
      group,
      cpuSeconds: Number(used.toFixed(1)),
      ofMachine: `${((100 * used) / (wall * cores)).toFixed(0)}%`,
    })
    const rows = Object.entries(groups).map(([group, pids]) => {
      const start = before.get(group)!
      // A process that started during the window counts from zero.
      return row(group, pids().reduce((sum, p) => sum + ticks(p) - (start.get(p) ?? 0), 0) / TICKS_PER_SECOND)
    })
    const machine = (machineTicks() - machineBefore) / TICKS_PER_SECOND
    // Whatever else ran meanwhile: on a machine of its own, close to zero.
    rows.push(
      row('everything else on the machine', Math.max(0, machine - rows.reduce((sum, r) => sum + r.cpuSeconds, 0))),
    )
    return rows
  }
}
