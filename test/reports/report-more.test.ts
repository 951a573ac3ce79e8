import { sql } from 'kysely'
import { describe, expect, it } from 'vitest'
import { foldReportTallies } from '../../src/reports/index.js'
import { api, trackingNumber } from '../support/factories.js'
import { useTestApp } from '../support/use-test-app.js'

// Issue 30.4: the oldest waiting parcels, notifications sent and failed per day, and the report
// tallies of a deleted package.

const t = useTestApp()
const MINUTE = 60_000

async function mailroom() {
  t.clock.set('2026-03-02T08:00:00Z')
  const client = await t.newClient()
  const a = api(t, client)
  const m = await a.mailroom()
  const add = async (site: string | undefined, status = 'RECEIVED') => {
    const tn = trackingNumber('1ZOLD')
    const location = site ? { location: { inboundSiteId: site } } : {}
    const { packageId } = await a.ok('POST', '/api/v1/packages', {
      package: { trackingNumber: tn, carrier: { carrierId: 'UPS' }, receiver: { contactId: m.receiverId } },
      lastActivity: { status, ...location },
    })
    t.clock.advance(MINUTE)
    return { tn, packageId: packageId as string }
  }
  const put = (id: string, body: object) => a.ok('PUT', `/api/v1/packages/${id}`, { package: {}, ...body })
  const hand = (id: string) =>
    put(id, { package: { givenTo: { contactId: m.receiverId } }, lastActivity: { status: 'PICKED_UP' } })
  return { a, client, m, add, put, hand }
}

describe('report: oldest waiting', () => {
  it('lists the parcels waiting longest, oldest first, under a site filter, and as CSV', async () => {
    const { a, m, add, hand } = await mailroom()
    const east = await a.site({ type: 'building', name: 'East', parent: m.siteId })
    const handed = await add(m.buildingId)
    const first = await add(m.buildingId)
    await add(undefined, 'IN_TRANSIT') // announced, not arrived: not waiting
    const second = await add(east)
    const third = await add(m.shelfId)
    await hand(handed.packageId)

    const r = await a.ok('GET', '/api/v1/reports?from=2026-03-02&to=2026-03-02&oldest=3')
    expect(r.oldestWaiting).toEqual([
      {
        packageId: first.packageId,
        trackingNumber: first.tn,
        status: 'RECEIVED',
        inboundSiteId: m.buildingId,
        siteName: expect.stringContaining('Building A'),
        receivedAt: '2026-03-02T08:01:00.000Z',
        waitingDays: 0,
      },
      expect.objectContaining({
        packageId: second.packageId,
        inboundSiteId: east,
        siteName: expect.stringContaining('East'),
      }),
      expect.objectContaining({ packageId: third.packageId, inboundSiteId: m.shelfId }),
    ])
    // Under the building: it and the shelf below it, not East.
    const under = await a.ok('GET', `/api/v1/reports?inboundSiteId=${m.buildingId}`)
    expect(under.oldestWaiting.map((o: { packageId: string }) => o.packageId)).toEqual([
      first.packageId,
      third.packageId,
    ])
    // Another subscription sees none of them.
    expect((await api(t, await t.newClient()).ok('GET', '/api/v1/reports')).oldestWaiting).toEqual([])

    const csv = await a.call('GET', '/api/v1/reports/oldest/csv?oldest=1')
    expect(csv.statusCode).toBe(200)
    const lines = csv.body.split('\r\n')
    expect(lines[0]).toBe('trackingNumber,packageId,site,status,receivedAt,waitingDays')
    expect(lines[1]).toContain(`${first.tn},${first.packageId},`)
    expect(lines.filter((l) => l !== '')).toHaveLength(2)
    const bad = await a.call('GET', '/api/v1/reports?oldest=0')
    expect(bad.statusCode).toBe(400)
    expect(bad.json().errors[0].additionalParameters).toBe('oldest')
  })

  it('refuses, naming the filter, a site with more sites under it than the oldest waiting reads', async () => {
    const { a, m } = await mailroom()
    const campus = await a.site({ type: 'building', name: 'Campus', parent: m.siteId })
    for (let i = 0; i < 200; i++) await a.site({ type: 'shelf', name: `Shelf ${i}`, parent: campus })
    // 200 under it: read whole.
    expect((await a.call('GET', `/api/v1/reports?inboundSiteId=${campus}`)).statusCode).toBe(200)
    await a.site({ type: 'shelf', name: 'Shelf 200', parent: campus })
    const res = await a.call('GET', `/api/v1/reports?inboundSiteId=${campus}`)
    expect(res.statusCode, res.body).toBe(400)
    expect(res.json().errors[0].additionalParameters).toBe('inboundSiteId')
  })
})

describe('report: notifications', () => {
  it('counts per day the notifications sent and failed, of this subscription, in the span', async () => {
    const { a, client } = await mailroom()
    const other = await t.newClient()
    let n = 0
    const note = (subId: string, status: string, at: string) =>
      sql`insert into notifications (notification_id, sub_id, kind, channel, contact_id, to_address, step, status,
            attempts, next_attempt_at, created_at, updated_at)
          values (${`ntf_count_${++n}`}, ${subId}, 'ARRIVAL', 'email', 'con_x', 'x@example.com', 0, ${status},
            1, ${at}::timestamptz, ${at}::timestamptz, ${at}::timestamptz)`.execute(t.ctx.db)
    await note(client.subId, 'sent', '2026-03-02T00:00:00Z')
    await note(client.subId, 'sent', '2026-03-02T23:59:59Z')
    await note(client.subId, 'failed', '2026-03-02T12:00:00Z')
    await note(client.subId, 'pending', '2026-03-02T12:00:00Z')
    await note(client.subId, 'suppressed', '2026-03-02T12:00:00Z')
    await note(client.subId, 'failed', '2026-03-03T09:00:00Z')
    await note(client.subId, 'sent', '2026-03-08T00:00:00Z') // the day after the span
    await note(other.subId, 'sent', '2026-03-02T12:00:00Z')

    const r = await a.ok('GET', '/api/v1/reports?from=2026-03-01&to=2026-03-07')
    expect(r.notifications).toEqual([
      { day: '2026-03-02', sent: 2, failed: 1 },
      { day: '2026-03-03', sent: 0, failed: 1 },
    ])
    const csv = await a.call('GET', '/api/v1/reports/notifications/csv?from=2026-03-01&to=2026-03-07')
    expect(csv.body).toBe('day,sent,failed\r\n2026-03-02,2,1\r\n2026-03-03,0,1\r\n')
  })
})

describe('report tallies of a deleted package', () => {
  it('takes back its arrival, its hand-over and its clerks, folded or not', async () => {
    const { a, add, hand, put } = await mailroom()
    const waiting = await add(undefined)
    const handed = await add(undefined)
    const archived = await add(undefined)
    await hand(handed.packageId)
    await hand(archived.packageId)
    await put(archived.packageId, { lastActivity: { status: 'ARCHIVED' } })
    await foldReportTallies(t.ctx.db)
    const announced = await add(undefined, 'IN_TRANSIT') // never counted: nothing to take back
    const late = await add(undefined) // a delta not folded yet
    const q = '/api/v1/reports?from=2026-03-02&to=2026-03-02'
    const before = await a.ok('GET', q)
    const sum = (r: { volume: Array<{ received: number; handedOver: number }> }) =>
      r.volume.reduce((s, v) => [s[0]! + v.received, s[1]! + v.handedOver], [0, 0])
    expect(sum(before)).toEqual([4, 2])

    const del = async (ids: string[]) => {
      // One statement deletes them all, as an operator's SQL would (their history first: it refers to them).
      await sql`delete from images where package_id = any(${ids}::text[])`.execute(t.ctx.db)
      await sql`delete from package_activities where package_id = any(${ids}::text[])`.execute(t.ctx.db)
      await sql`delete from packages where package_id = any(${ids}::text[])`.execute(t.ctx.db)
    }
    await del([waiting, handed, announced, late].map((p) => p.packageId))
    // What is left is the archived parcel's, counted as before.
    const after = await a.ok('GET', q)
    expect(sum(after)).toEqual([1, 1])
    expect(after.dwell).toEqual([expect.objectContaining({ handedOver: 1 })])
    expect(after.clerks).toEqual([expect.objectContaining({ received: 1, handedOver: 1 })])
    await foldReportTallies(t.ctx.db)
    expect(sum(await a.ok('GET', q))).toEqual([1, 1])

    // Archived, it keeps no hand-over day to take back: the whole parcel stays counted, never more
    // handed over than received.
    await del([archived.packageId])
    const last = await a.ok('GET', q)
    expect(sum(last)).toEqual([1, 1])
    expect(last.clerks).toEqual([expect.objectContaining({ received: 1, handedOver: 1 })])
  })
})
