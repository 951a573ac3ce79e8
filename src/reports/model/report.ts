import type { DayTally } from '../store/tallies.js'

/** Upper bounds of the dwell buckets in hours (migration 0072); the last bucket is open. */
export const DWELL_BOUNDS = [1, 2, 4, 8, 12, 24, 48, 72, 96, 120, 168, 240, 336, 504, 720] as const

export const PERIODS = ['day', 'week'] as const
export type Period = (typeof PERIODS)[number]
export const GROUPINGS = ['site', 'carrier'] as const
export type Grouping = (typeof GROUPINGS)[number]

/** The first day of the period a day is in: itself, or the Monday of its ISO week. */
export function periodOf(day: string, period: Period): string {
  if (period === 'day') return day
  const d = new Date(`${day}T00:00:00Z`)
  const back = (d.getUTCDay() + 6) % 7
  d.setUTCDate(d.getUTCDate() - back)
  return d.toISOString().slice(0, 10)
}

/**
 * The q-quantile (0..1) of the dwell hours a histogram holds, interpolated linearly inside its
 * bucket (the open last bucket counts as its lower bound). Undefined for an empty histogram.
 * Precise to the bucket: within an hour up to 2 h, a day past two days.
 */
export function quantile(counts: readonly number[], q: number): number | undefined {
  const total = counts.reduce((a, b) => a + b, 0)
  if (total === 0) return undefined
  const rank = q * total
  let seen = 0
  for (let i = 0; i < counts.length; i++) {
    const c = counts[i] ?? 0
    if (c > 0 && seen + c >= rank) {
      const lo = i === 0 ? 0 : DWELL_BOUNDS[i - 1]!
      const hi = DWELL_BOUNDS[i] ?? lo
      return lo + ((hi - lo) * Math.max(0, rank - seen)) / c
    }
    seen += c
  }
  return DWELL_BOUNDS[DWELL_BOUNDS.length - 1]
}

export interface VolumeRow {
  period: string
  groupId: string
  received: number
  handedOver: number
}
export interface DwellRow {
  period: string
  handedOver: number
  medianHours: number | null
  p90Hours: number | null
}
export interface ClerkRow {
  clerk: string
  received: number
  handedOver: number
}

const round1 = (x: number | undefined) => (x === undefined ? null : Math.round(x * 10) / 10)

/** The three tables of the report from the day tallies, kept to the sites `keepSite` accepts. */
export function buildReport(
  tallies: readonly DayTally[],
  opts: { period: Period; groupBy: Grouping; keepSite: (siteId: string) => boolean },
): { volume: VolumeRow[]; dwell: DwellRow[]; clerks: ClerkRow[] } {
  const volume = new Map<string, VolumeRow>()
  const hist = new Map<string, number[]>()
  const clerks = new Map<string, ClerkRow>()
  for (const t of tallies) {
    const period = periodOf(t.day, opts.period)
    if (t.kind === 'received' || t.kind === 'handed_over') {
      if (!opts.keepSite(t.siteId)) continue
      const groupId = opts.groupBy === 'site' ? t.siteId : t.carrierId
      const key = `${period}\u0000${groupId}`
      const row = volume.get(key) ?? { period, groupId, received: 0, handedOver: 0 }
      if (t.kind === 'received') row.received += t.n
      else row.handedOver += t.n
      volume.set(key, row)
    } else if (t.kind === 'dwell') {
      // Dwell buckets come apart from the volume cells: the tallies keep one histogram per site and day.
      const h = hist.get(period) ?? Array<number>(DWELL_BOUNDS.length + 1).fill(0)
      h[t.bucket] = (h[t.bucket] ?? 0) + t.n
      hist.set(period, h)
    } else if (t.kind === 'received_by' || t.kind === 'handed_over_by') {
      const row = clerks.get(t.siteId) ?? { clerk: t.siteId, received: 0, handedOver: 0 }
      if (t.kind === 'received_by') row.received += t.n
      else row.handedOver += t.n
      clerks.set(t.siteId, row)
    }
  }
  const dwell = [...hist.entries()]
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([period, counts]) => ({
      period,
      handedOver: counts.reduce((a, b) => a + b, 0),
      medianHours: round1(quantile(counts, 0.5)),
      p90Hours: round1(quantile(counts, 0.9)),
    }))
  return {
    volume: [...volume.values()].sort((a, b) => a.period.localeCompare(b.period) || a.groupId.localeCompare(b.groupId)),
    dwell,
    clerks: [...clerks.values()].sort((a, b) => b.received + b.handedOver - (a.received + a.handedOver)),
  }
}
