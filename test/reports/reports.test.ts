import { describe, expect, it } from 'vitest'
import { buildReport, periodOf, quantile } from '../../src/reports/model/report.js'
import { foldReportTallies } from '../../src/reports/index.js'
import { api, trackingNumber } from '../support/factories.js'
import { useTestApp } from '../support/use-test-app.js'

const t = useTestApp()
const HOUR = 3_600_000

describe('reports', () => {
  it('counts arrivals and hand-overs per day, site and carrier, dwell median and p90, and clerks', async () => {
    t.clock.set('2026-03-02T08:00:00Z') // a Monday
    let client = await t.newClient()
    let a = api(t, client)
    /** The clock moves past the token's life: a fresh one each time. */
    const later = async (ms: number) => {
      t.clock.advance(ms)
      client = await t.refresh(client)
      a = api(t, client)
    }
    const m = await a.mailroom()
    const east = await a.site({ type: 'building', name: 'East', parent: m.siteId })
    const add = async (site: string, carrierId: string) =>
      (
        await a.ok(
          'POST',
          '/api/v1/packages',
          {
            package: {
              trackingNumber: trackingNumber('1ZREP'),
              carrier: { carrierId },
              receiver: { contactId: m.receiverId },
            },
            lastActivity: { status: 'RECEIVED', location: { inboundSiteId: site } },
          },
          undefined,
        )
      ).packageId as string
    const hand = async (packageId: string) =>
      a.ok('PUT', `/api/v1/packages/${packageId}`, {
        package: { givenTo: { contactId: m.receiverId } },
        lastActivity: { status: 'PICKED_UP' },
      })
    const ids = [await add(m.buildingId, 'UPS'), await add(m.buildingId, 'FEDEX'), await add(east, 'UPS')]
    // Announced, not arrived: not received.
    await a.ok('POST', '/api/v1/packages', {
      package: { trackingNumber: trackingNumber('1ZREP'), receiver: { contactId: m.receiverId } },
      lastActivity: { status: 'IN_TRANSIT' },
    })
    await later(3 * HOUR)
    await hand(ids[0]!) // dwelt 3 h, Monday
    await later(2 * 24 * HOUR)
    await hand(ids[1]!) // dwelt 51 h, Wednesday
    await foldReportTallies(t.ctx.db)
    await later(HOUR)
    await hand(ids[2]!) // 52 h, left as a delta (not folded)

    const r = await a.ok('GET', '/api/v1/reports?from=2026-03-01&to=2026-03-07')
    expect(r.volume).toEqual(
      [
        {
          period: '2026-03-02',
          groupId: m.buildingId,
          groupName: expect.stringContaining('Building A'),
          received: 2,
          handedOver: 1,
        },
        { period: '2026-03-02', groupId: east, groupName: expect.stringContaining('East'), received: 1, handedOver: 0 },
        {
          period: '2026-03-04',
          groupId: m.buildingId,
          groupName: expect.stringContaining('Building A'),
          received: 0,
          handedOver: 1,
        },
        { period: '2026-03-04', groupId: east, groupName: expect.stringContaining('East'), received: 0, handedOver: 1 },
      ].sort((x, y) => x.period.localeCompare(y.period) || x.groupId.localeCompare(y.groupId)),
    )
    expect(r.dwell.map((d: { period: string; handedOver: number }) => [d.period, d.handedOver])).toEqual([
      ['2026-03-02', 1],
      ['2026-03-04', 2],
    ])
    expect(r.dwell[0].medianHours).toBeGreaterThanOrEqual(2)
    expect(r.dwell[0].medianHours).toBeLessThanOrEqual(4)
    expect(r.dwell[1].p90Hours).toBeGreaterThanOrEqual(48)
    expect(r.dwell[1].p90Hours).toBeLessThanOrEqual(72)
    expect(r.clerks).toEqual([{ clerk: expect.any(String), received: 3, handedOver: 3 }])

    const weekly = await a.ok('GET', `/api/v1/reports?from=2026-03-01&to=2026-03-07&period=week&groupBy=carrier`)
    const byCarrier = Object.fromEntries(
      weekly.volume.map((v: { period: string; groupName: string; received: number; handedOver: number }) => [
        `${v.period} ${v.groupName}`,
        [v.received, v.handedOver],
      ]),
    )
    expect(byCarrier).toEqual({ '2026-03-02 UPS': [2, 2], '2026-03-02 FedEx': [1, 1] })

    const east1 = await a.ok('GET', `/api/v1/reports?from=2026-03-01&to=2026-03-07&inboundSiteId=${east}`)
    expect(east1.volume.every((v: { groupId: string }) => v.groupId === east)).toBe(true)

    // Undoing a hand-over takes it back out.
    await a.ok('PUT', `/api/v1/packages/${ids[2]}`, { package: {}, lastActivity: { status: 'RECEIVED' } })
    const after = await a.ok('GET', '/api/v1/reports?from=2026-03-04&to=2026-03-04')
    expect(after.dwell[0].handedOver).toBe(1)

    const csv = await a.call('GET', '/api/v1/reports/volume/csv?from=2026-03-01&to=2026-03-07&groupBy=carrier')
    expect(csv.headers['content-type']).toBe('text/csv; charset=utf-8')
    expect(csv.body.split('\r\n')[0]).toBe('period,carrier,received,handedOver')
    expect(csv.body).toContain('2026-03-02,UPS,2,1')
    const clerks = await a.call('GET', '/api/v1/reports/clerks/csv?from=2026-03-01&to=2026-03-07')
    expect(clerks.body.split('\r\n')[0]).toBe('clerk,received,handedOver')

    // Another subscription sees none of it.
    const other = api(t, await t.newClient())
    const none = await other.ok('GET', '/api/v1/reports?from=2026-03-01&to=2026-03-07')
    expect([none.volume, none.dwell, none.clerks]).toEqual([[], [], []])
    expect((await other.call('GET', `/api/v1/reports?inboundSiteId=${east}`)).statusCode).toBe(400)
  })

  it('refuses a bad span naming the field', async () => {
    const a = api(t, await t.newClient())
    for (const [q, field] of [
      ['from=2026-03-08&to=2026-03-01', 'from'],
      ['from=2024-01-01&to=2026-03-01', 'from'],
      ['from=2026-13-45', 'from'],
      ['from=2026-02-30&to=2026-03-01', 'from'],
      ['from=2026-02-01&to=2026-02-30', 'to'],
      ['from=0000-01-01&to=0000-01-02', 'from'],
      // No from: its default is counted back from to, which must be a day first (the fuzz found a 500).
      ['to=9392-69-04', 'to'],
      ['period=month', 'period'],
    ] as const) {
      const res = await a.call('GET', `/api/v1/reports?${q}`)
      expect(res.statusCode, q).toBe(400)
      expect(res.json().errors[0].additionalParameters, q).toBe(field)
    }
    expect((await a.call('GET', '/api/v1/reports/everything/csv')).statusCode).toBe(400)
    // A span that would begin before the first storable day begins on it.
    expect((await a.call('GET', '/api/v1/reports?to=0001-01-05')).statusCode).toBe(200)
  })
})

/** One day's parcels at the mailroom, and the report of that day summed over its groups. */
async function day() {
  t.clock.set('2026-03-02T08:00:00Z')
  const a = api(t, await t.newClient())
  const m = await a.mailroom()
  const add = async (site = m.buildingId) =>
    (
      await a.ok('POST', '/api/v1/packages', {
        package: {
          trackingNumber: trackingNumber('1ZTAL'),
          carrier: { carrierId: 'UPS' },
          receiver: { contactId: m.receiverId },
        },
        lastActivity: { status: 'RECEIVED', location: { inboundSiteId: site } },
      })
    ).packageId as string
  const put = (id: string, body: object) => a.ok('PUT', `/api/v1/packages/${id}`, { package: {}, ...body })
  const hand = (id: string) =>
    put(id, { package: { givenTo: { contactId: m.receiverId } }, lastActivity: { status: 'PICKED_UP' } })
  const report = async (q = '') => {
    const r = await a.ok('GET', `/api/v1/reports?from=2026-03-02&to=2026-03-02${q}`)
    const cells = r.volume as Array<{ groupId: string; received: number; handedOver: number }>
    const sum = (k: 'received' | 'handedOver') => cells.reduce((n, c) => n + c[k], 0)
    return { cells, received: sum('received'), handedOver: sum('handedOver') }
  }
  return { a, m, add, put, hand, report }
}

describe('report tallies follow each record', () => {
  it('keeps a hand-over counted when the parcel is archived', async () => {
    const { add, put, hand, report } = await day()
    const id = await add()
    await hand(id)
    const before = await report()
    await put(id, { lastActivity: { status: 'ARCHIVED' } })
    expect(await report()).toEqual(before)
    expect(before.handedOver).toBe(1)
  })

  it('moves a hand-over with an edit after it, so undoing it leaves no negative cell', async () => {
    const { m, a, add, put, hand, report } = await day()
    const east = await a.site({ type: 'building', name: 'East', parent: m.siteId })
    const id = await add()
    await hand(id)
    await put(id, {
      package: { carrier: { carrierId: 'FEDEX' } },
      lastActivity: { status: 'PICKED_UP', location: { inboundSiteId: east } },
    })
    const moved = await report('&groupBy=carrier')
    expect(moved.cells.map((c) => [c.groupId, c.handedOver]).filter(([, n]) => n !== 0)).toEqual([['FEDEX', 1]])
    await put(id, { lastActivity: { status: 'RECEIVED' } })
    for (const q of ['', '&groupBy=carrier']) {
      const r = await report(q)
      expect(
        r.cells.every((c) => c.received >= 0 && c.handedOver >= 0),
        q,
      ).toBe(true)
      expect([r.received, r.handedOver], q).toEqual([1, 0])
    }
  })

  it('counts an arrival once when a parcel goes back in transit and arrives again', async () => {
    const { add, put, report } = await day()
    const id = await add()
    await put(id, { lastActivity: { status: 'IN_TRANSIT' } })
    await put(id, { lastActivity: { status: 'RECEIVED' } })
    const r = await report()
    expect(r.received).toBe(1)
    const clerks = (await (await day()).report()).received // another subscription: none
    expect(clerks).toBe(0)
  })

  it('keeps under a site filter a hand-over from a shelf below it that received nothing', async () => {
    const { a, m, add, hand, report } = await day()
    await a.ok('PUT', `/api/v1/shelves/${m.shelfId}`, { kind: 'shelf' }, 201)
    const id = await add(m.buildingId)
    await a.ok('POST', `/api/v1/shelves/${m.shelfId}/filings`, { scans: [id] }, 200)
    await hand(id)
    const r = await report(`&inboundSiteId=${m.shelfId}`)
    expect(r.cells).toEqual([expect.objectContaining({ groupId: m.shelfId, received: 0, handedOver: 1 })])
  })
})

describe('report arithmetic', () => {
  it('puts a day in its ISO week by its Monday', () => {
    expect(periodOf('2026-03-08', 'week')).toBe('2026-03-02') // Sunday
    expect(periodOf('2026-03-02', 'week')).toBe('2026-03-02')
    expect(periodOf('2026-03-03', 'day')).toBe('2026-03-03')
  })
  it('interpolates quantiles inside their bucket', () => {
    expect(quantile([], 0.5)).toBeUndefined()
    expect(quantile([0, 0, 4], 0.5)).toBe(3) // bucket 2..4 h, half way
    expect(quantile([10, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0], 0.9)).toBe(0.9)
    expect(quantile([...Array(15).fill(0), 5], 0.5)).toBe(720) // the open bucket counts as its bound
  })
  it('keeps only the sites asked for, clerks over all', () => {
    const r = buildReport(
      [
        { day: '2026-03-02', kind: 'received', siteId: 's1', carrierId: 'UPS', bucket: -1, n: 2 },
        { day: '2026-03-02', kind: 'received', siteId: 's2', carrierId: 'UPS', bucket: -1, n: 5 },
        { day: '2026-03-02', kind: 'received_by', siteId: 'ann', carrierId: '', bucket: -1, n: 7 },
      ],
      { period: 'day', groupBy: 'site', keepSite: (s) => s === 's1' },
    )
    expect(r.volume).toEqual([{ period: '2026-03-02', groupId: 's1', received: 2, handedOver: 0 }])
    expect(r.clerks).toEqual([{ clerk: 'ann', received: 7, handedOver: 0 }])
  })
})
