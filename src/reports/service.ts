import { stringify } from 'csv-stringify/sync'
import type { Db } from '../platform/db/database.js'
import type { Clock } from '../platform/kit/clock.js'
import { invalid } from '../platform/kit/errors.js'
import type { SiteInfo } from '../sites/index.js'
import { buildReport } from './model/report.js'
import { periodTallies, sitesSeen, type DayTally } from './store/tallies.js'
import type { Report, ReportQuery, REPORT_TABLES } from './api/schemas.js'

export interface ReportSites {
  getInfos(subId: string, siteIds: string[]): Promise<Map<string, SiteInfo>>
  /** The sites below one (`searchBy: ancestorlist:<id>`), for the oldest waiting under a site filter. */
  listSites(
    subId: string,
    q: { searchBy: string; skip: number; limit: number; sort: string; fetchPrimarySite: boolean },
  ): Promise<{ inboundSites: Array<{ inboundSiteId: string }>; totalCount: number }>
}
export interface ReportCarriers {
  getVisible(subId: string, carrierIds: string[]): Promise<Map<string, { name: string }>>
}
/** The packages waiting longest, read off the packages domain's indexes. */
export interface ReportPackages {
  oldestWaiting(
    subId: string,
    q: { siteIds?: string[]; limit: number },
  ): Promise<
    Array<{ packageId: string; trackingNumber: string; siteId: string | null; status: string; createdAt: Date }>
  >
}
export interface ReportsServiceDeps {
  db: Db
  clock: Clock
  sites: ReportSites
  carriers: ReportCarriers
  packages: ReportPackages
}

/** The longest span one report covers: a year and a month (a year on year view). */
const MAX_DAYS = 400
const DAY_MS = 86_400_000
/** The most sites below a site filter the oldest waiting reads (one index range per site and status). */
const SUBTREE_LIMIT = 200
const isoDay = (d: Date) => d.toISOString().slice(0, 10)
/** The first day PostgreSQL's dates hold: they have no year 0. */
const FIRST_DAY = Date.parse('0001-01-01T00:00:00Z')
/** The day's time, or undefined when it is no real day: Date.parse rolls 2026-02-30 over to March. */
function dayOf(day: string): number | undefined {
  const ms = Date.parse(`${day}T00:00:00Z`)
  return ms >= FIRST_DAY && isoDay(new Date(ms)) === day ? ms : undefined
}

export type ReportsService = ReturnType<typeof createReportsService>

/** A cell a spreadsheet would run as a formula is prefixed with an apostrophe (OWASP CSV injection). */
const cell = (v: unknown) => (typeof v === 'string' && /^[=+\-@\t\r]/.test(v) ? `'${v}` : v)

export function createReportsService(deps: ReportsServiceDeps) {
  const { db, clock, sites, carriers, packages } = deps

  /** The site and the sites below it (at most SUBTREE_LIMIT of them, else a 400). */
  async function subtree(subId: string, siteId: string): Promise<string[]> {
    const q = { searchBy: `ancestorlist:${siteId}`, skip: 0, limit: SUBTREE_LIMIT, sort: 'locationHierarchy,ASC' }
    const below = await sites.listSites(subId, { ...q, fetchPrimarySite: false })
    // Not a silent cut: the parcels of the sites past the limit would be missing from the answer.
    if (below.totalCount > SUBTREE_LIMIT)
      throw invalid(
        'inboundSiteId',
        `More than ${SUBTREE_LIMIT} sites are under this site: choose one lower down for the oldest waiting.`,
      )
    return [siteId, ...below.inboundSites.map((s) => s.inboundSiteId)]
  }

  /** The oldest waiting now, with their sites' names (under the filter: that site and those under it). */
  async function oldestWaiting(
    subId: string,
    under: string | undefined,
    limit: number,
  ): Promise<Report['oldestWaiting']> {
    const siteIds = under === undefined ? undefined : await subtree(subId, under)
    const rows = await packages.oldestWaiting(subId, { siteIds, limit })
    const names = await sites.getInfos(subId, [...new Set(rows.flatMap((r) => (r.siteId ? [r.siteId] : [])))])
    const now = clock.now().getTime()
    return rows.map((r) => ({
      packageId: r.packageId,
      trackingNumber: r.trackingNumber,
      status: r.status,
      inboundSiteId: r.siteId ?? '',
      siteName: r.siteId ? (names.get(r.siteId)?.locationHierarchy.replace(/\| /g, ' › ') ?? r.siteId) : 'No site',
      receivedAt: r.createdAt.toISOString(),
      waitingDays: Math.round((now - r.createdAt.getTime()) / (DAY_MS / 10)) / 10,
    }))
  }

  function span(q: ReportQuery): { from: string; to: string } {
    const to = q.to ?? isoDay(clock.now())
    const t = dayOf(to)
    // The default `from` is counted back from `to`: never from a `to` that is no day.
    const from = q.from ?? (t === undefined ? undefined : isoDay(new Date(Math.max(FIRST_DAY, t - 29 * DAY_MS))))
    const f = from === undefined ? undefined : dayOf(from)
    if (q.from !== undefined && f === undefined) throw invalid('from', `${q.from} is not a date.`)
    if (t === undefined) throw invalid('to', `${to} is not a date.`)
    if (f === undefined || from === undefined) throw invalid('from', 'from is not a date.')
    if (f > t) throw invalid('from', 'from is after to.')
    if ((t - f) / DAY_MS >= MAX_DAYS) throw invalid('from', `A report covers at most ${MAX_DAYS} days.`)
    return { from, to }
  }

  async function report(subId: string, q: ReportQuery): Promise<Report> {
    const { from, to } = span(q)
    const period = q.period ?? 'day'
    const groupBy = q.groupBy ?? 'site'
    // Under a site filter, the sites kept are those seen in the span that are it or below it.
    let siteIds: string[] | undefined
    let infos = new Map<string, SiteInfo>()
    if (q.inboundSiteId) {
      const under = q.inboundSiteId
      const seen = await sitesSeen(db, subId, from, to)
      infos = await sites.getInfos(subId, [...seen.filter((s) => s !== ''), under])
      if (!infos.get(under)) throw invalid('inboundSiteId', `No site ${under}.`)
      siteIds = seen.filter((id) => id === under || (infos.get(id)?.ancestorlist.includes(under) ?? false))
    }
    const [tallies, oldest] = await Promise.all([
      periodTallies(db, subId, { from, to, period, groupBy, siteIds }),
      oldestWaiting(subId, q.inboundSiteId, q.oldest ?? 10),
    ])
    const sent = notificationDays(tallies)
    // Periods and sites are already applied by the query: the rows are the report's.
    const built = buildReport(tallies, { period: 'day', groupBy, keepSite: () => true })
    const groupIds = [...new Set(built.volume.map((r) => r.groupId).filter((g) => g !== ''))]
    if (groupBy === 'site') infos = await sites.getInfos(subId, groupIds)
    const names =
      groupBy === 'site'
        ? new Map([...infos].map(([id, s]) => [id, s.locationHierarchy.replace(/\| /g, ' › ')]))
        : new Map([...(await carriers.getVisible(subId, groupIds))].map(([id, c]) => [id, c.name]))
    return {
      from,
      to,
      period,
      groupBy,
      volume: built.volume.map((r) => ({
        ...r,
        groupName:
          r.groupId === '' ? (groupBy === 'site' ? 'No site' : 'No carrier') : (names.get(r.groupId) ?? r.groupId),
      })),
      dwell: built.dwell,
      clerks: built.clerks,
      oldestWaiting: oldest,
      notifications: sent,
    }
  }

  return {
    report,

    /** One table of the report as RFC 4180 CSV with a header row. */
    async reportCsv(subId: string, table: (typeof REPORT_TABLES)[number], q: ReportQuery): Promise<string> {
      const r = await report(subId, q)
      const [columns, rows] = tableOf(r, table)
      return stringify([columns, ...rows.map((row) => row.map(cell))], { record_delimiter: '\r\n' })
    },
  }
}

/** Sent (bucket 0) and failed (bucket 1) per day, as the tallies carry them. */
function notificationDays(tallies: readonly DayTally[]): Report['notifications'] {
  const days = new Map<string, { day: string; sent: number; failed: number }>()
  for (const t of tallies) {
    if (t.kind !== 'notified') continue
    const d = days.get(t.day) ?? { day: t.day, sent: 0, failed: 0 }
    if (t.bucket === 0) d.sent += t.n
    else d.failed += t.n
    days.set(t.day, d)
  }
  return [...days.values()].sort((a, b) => a.day.localeCompare(b.day))
}

const groupByLabel = (g: string) => (g === 'carrier' ? 'carrier' : 'site')

/** A table of the report as a header and rows; a table not handled does not compile. */
function tableOf(r: Report, table: (typeof REPORT_TABLES)[number]): [string[], unknown[][]] {
  switch (table) {
    case 'volume':
      return [
        ['period', groupByLabel(r.groupBy), 'received', 'handedOver'],
        r.volume.map((v) => [v.period, v.groupName, v.received, v.handedOver]),
      ]
    case 'dwell':
      return [
        ['period', 'handedOver', 'medianHours', 'p90Hours'],
        r.dwell.map((d) => [d.period, d.handedOver, d.medianHours ?? '', d.p90Hours ?? '']),
      ]
    case 'clerks':
      return [['clerk', 'received', 'handedOver'], r.clerks.map((c) => [c.clerk, c.received, c.handedOver])]
    case 'oldest':
      return [
        ['trackingNumber', 'packageId', 'site', 'status', 'receivedAt', 'waitingDays'],
        r.oldestWaiting.map((o) => [o.trackingNumber, o.packageId, o.siteName, o.status, o.receivedAt, o.waitingDays]),
      ]
    case 'notifications':
      return [['day', 'sent', 'failed'], r.notifications.map((n) => [n.day, n.sent, n.failed])]
    default: {
      const never: never = table
      return never
    }
  }
}
