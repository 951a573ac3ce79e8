import { sql } from 'kysely'
import { describe, expect, it } from 'vitest'
import { countNotificationsByDay } from '../../src/notifications/index.js'
import { foldReportTallies } from '../../src/reports/index.js'
import { summaryDue, wallClock } from '../../src/reports/model/summary.js'
import { useSmtpServer } from '../notifications/support/smtp.js'
import { api, trackingNumber } from '../support/factories.js'
import { useTestApp } from '../support/use-test-app.js'

// Issue 30.4 (part 2): report days of each site's own time zone, the report_days tallies against a
// recount, and the daily summary email to admins over real SMTP.

const { smtp, env } = useSmtpServer({ REPORT_SUMMARY_HOUR: '7', REPORT_SUMMARY_TIME_ZONE: 'America/New_York' })
const t = useTestApp(env)
const HOUR = 3_600_000

async function desk() {
  let client = await t.newClient()
  // `a` stays good across clock jumps: tick() and at() move the clock and take a fresh token.
  type Api = ReturnType<typeof api>
  const a = {
    ok: (...args: Parameters<Api['ok']>) => api(t, client).ok(...args),
    call: (...args: Parameters<Api['call']>) => api(t, client).call(...args),
    site: (input: Record<string, unknown>) => api(t, client).site(input),
  }
  const tick = async (ms: number) => {
    t.clock.advance(ms)
    client = await t.refresh(client)
  }
  const at = async (iso: string) => {
    t.clock.set(iso)
    client = await t.refresh(client)
  }
  const m = await api(t, client).mailroom() // its location: America/New_York
  const add = async (site: string | undefined, carrierId = 'UPS', status = 'RECEIVED') =>
    (
      await a.ok('POST', '/api/v1/packages', {
        package: {
          trackingNumber: trackingNumber('1ZDAY'),
          carrier: { carrierId },
          receiver: { contactId: m.receiverId },
        },
        lastActivity: { status, ...(site ? { location: { inboundSiteId: site } } : {}) },
      })
    ).packageId as string
  const put = (id: string, body: object) => a.ok('PUT', `/api/v1/packages/${id}`, { package: {}, ...body })
  const hand = (id: string) =>
    put(id, { package: { givenTo: { contactId: m.receiverId } }, lastActivity: { status: 'PICKED_UP' } })
  return { a, m, add, put, hand, tick, at }
}

describe('report days are the days of the site’s location', () => {
  it("counts a parcel on the local day of its site's nearest location, in each zone", async () => {
    // 2026-11-02 03:30 UTC: still 1 November in New York (22:30 EST), 2 November in UTC.
    t.clock.set('2026-11-02T03:30:00Z')
    const { a, m, add, hand, tick } = await desk()
    const west = await a.ok('POST', '/api/v1/locations', {
      name: 'West',
      address: { line1: '1 Pine St', city: 'Seattle', state: 'WA', postalCode: '98101', country: 'US' },
      timezone: 'America/Los_Angeles',
    })
    const seattle = await a.site({ type: 'site', name: 'Seattle', locationId: west.locationId })
    const ny = await add(m.shelfId) // the shelf: its zone is its site's location's, two levels up
    await add(seattle) // 19:30 PST on 1 November
    await add(undefined) // no site given: the primary site's, New York
    await tick(2 * HOUR) // 05:30 UTC: 00:30 on 2 November in New York
    await hand(ny)

    const day = async (d: string) => {
      const r = await a.ok('GET', `/api/v1/reports?from=${d}&to=${d}`)
      return Object.fromEntries(
        (r.volume as Array<{ groupId: string; received: number; handedOver: number }>).map((v) => [
          v.groupId,
          [v.received, v.handedOver],
        ]),
      )
    }
    expect(await day('2026-11-01')).toEqual({ [m.shelfId]: [1, 0], [seattle]: [1, 0], [m.siteId]: [1, 0] })
    expect(await day('2026-11-02')).toEqual({ [m.shelfId]: [0, 1] })
    // The week of 2 November (a Monday) has the hand-over, not the arrivals of Sunday 1 November.
    const week = await a.ok('GET', '/api/v1/reports?from=2026-10-26&to=2026-11-08&period=week')
    expect(week.dwell.map((d: { period: string; handedOver: number }) => [d.period, d.handedOver])).toEqual([
      ['2026-11-02', 1],
    ])
    // A location that changes zone moves nothing counted: later facts use the new zone.
    await a.ok('PUT', `/api/v1/locations/${west.locationId}`, { timezone: 'UTC' })
    await add(seattle) // 05:30 UTC, 2 November
    await foldReportTallies(t.ctx.db)
    expect(await day('2026-11-01')).toEqual({ [m.shelfId]: [1, 0], [seattle]: [1, 0], [m.siteId]: [1, 0] })
    expect((await day('2026-11-02'))[seattle]).toEqual([1, 0])
  })
})

describe('report tallies agree with a recount', () => {
  it('after arrivals, hand-overs, undos, edits, deletes, notifications and folds', async () => {
    t.clock.set('2026-05-04T12:00:00Z')
    const { a, m, add, put, hand, tick } = await desk()
    const east = await a.site({ type: 'building', name: 'East', parent: m.siteId })
    const ids: string[] = []
    for (let i = 0; i < 12; i++) {
      ids.push(await add([m.buildingId, east, m.shelfId][i % 3], ['UPS', 'FEDEX', 'USPS'][i % 3 === 2 ? 2 : i % 2]))
      await tick(5 * HOUR + i * 60_000)
      if (i === 5) await foldReportTallies(t.ctx.db)
    }
    const announced = await add(east, 'UPS', 'IN_TRANSIT')
    for (const id of ids.slice(0, 8)) {
      await hand(id)
      await tick(7 * HOUR)
    }
    await foldReportTallies(t.ctx.db)
    await put(ids[1]!, { lastActivity: { status: 'RECEIVED' } }) // undone
    await hand(ids[1]!) // handed over again, later
    // Archived: stays counted, though its row keeps no hand-over time to recount it by.
    const { rows: kept } = await sql<{ day: string; site_id: string; carrier_id: string }>`
      select to_char((delivery_time at time zone 'America/New_York')::date, 'YYYY-MM-DD') as day, site_id, carrier_id
        from packages where package_id = ${ids[3]}`.execute(t.ctx.db)
    await put(ids[3]!, { lastActivity: { status: 'ARCHIVED' } })
    const gone = [ids[4]!, ids[9]!, announced]
    await sql`delete from images where package_id = any(${gone}::text[])`.execute(t.ctx.db)
    await sql`delete from package_activities where package_id = any(${gone}::text[])`.execute(t.ctx.db)
    await sql`delete from packages where package_id = any(${gone}::text[])`.execute(t.ctx.db)
    const sub = (
      await sql<{ sub_id: string }>`select sub_id from packages where package_id = ${ids[0]}`.execute(t.ctx.db)
    ).rows[0]!.sub_id
    let n = 0
    const note = (status: string, at: string) =>
      sql`insert into notifications (notification_id, sub_id, kind, channel, contact_id, to_address, step, status,
            attempts, next_attempt_at, created_at, updated_at)
          values (${`ntf_agree_${++n}`}, ${sub}, 'ARRIVAL', 'email', 'con_x', 'x@example.com', 0, ${status},
            1, ${at}::timestamptz, ${at}::timestamptz, ${at}::timestamptz)`.execute(t.ctx.db)
    for (const [status, at] of [
      ['sent', '2026-05-04T13:00:00Z'],
      ['pending', '2026-05-05T13:00:00Z'],
      ['failed', '2026-05-05T14:00:00Z'],
      ['sent', '2026-05-06T23:30:00Z'],
    ] as const)
      await note(status, at)
    await foldReportTallies(t.ctx.db)
    await sql`update notifications set status = 'sent' where notification_id = 'ntf_agree_2'`.execute(t.ctx.db)
    await sql`update notifications set status = 'failed' where notification_id = 'ntf_agree_1'`.execute(t.ctx.db)
    await sql`delete from notifications where notification_id = 'ntf_agree_4'`.execute(t.ctx.db)

    const q = '/api/v1/reports?from=2026-05-01&to=2026-05-10'
    const check = async () => {
      const [bySite, byCarrier] = [await a.ok('GET', q), await a.ok('GET', `${q}&groupBy=carrier`)]
      const cells = (r: { volume: Array<{ period: string; groupId: string; received: number; handedOver: number }> }) =>
        r.volume.map((v) => `${v.period} ${v.groupId} ${v.received} ${v.handedOver}`).sort()
      expect(cells(bySite)).toEqual(await recount(sub, 'site_id', kept[0]!))
      expect(cells(byCarrier)).toEqual(await recount(sub, 'carrier_id', kept[0]!))
      expect(bySite.notifications).toEqual(
        await countNotificationsByDay(t.ctx.db, sub, { from: '2026-05-01', to: '2026-05-10' }),
      )
      const handed = bySite.volume.reduce((s: number, v: { handedOver: number }) => s + v.handedOver, 0)
      expect(bySite.dwell.reduce((s: number, d: { handedOver: number }) => s + d.handedOver, 0)).toBe(handed)
      expect(bySite.clerks).toEqual([expect.objectContaining({ received: 10, handedOver: handed })])
    }
    await check() // deltas and folded rows together
    await foldReportTallies(t.ctx.db)
    await check() // all folded
    expect((await a.ok('GET', q)).notifications).toEqual([
      { day: '2026-05-04', sent: 0, failed: 1 },
      { day: '2026-05-05', sent: 1, failed: 1 },
    ])
  })
})

/**
 * The report's volume cells recounted from the packages as they are now, on New York days (the
 * mailroom's location); the archived parcel's hand-over from where it was when it was archived.
 */
async function recount(
  sub: string,
  key: 'site_id' | 'carrier_id',
  archived: { day: string; site_id: string; carrier_id: string },
): Promise<string[]> {
  const { rows } = await sql<{ cell: string }>`
    with facts as (
      select to_char((created_at at time zone 'America/New_York')::date, 'YYYY-MM-DD') as day, ${sql.ref(key)} as k, 1 as r, 0 as h
        from packages where sub_id = ${sub} and current_status <> 'IN_TRANSIT'
      union all
      select to_char((delivery_time at time zone 'America/New_York')::date, 'YYYY-MM-DD'), ${sql.ref(key)}, 0, 1
        from packages where sub_id = ${sub} and current_status in ('DELIVERED', 'PICKED_UP') and delivery_time is not null
      union all
      select ${archived.day}, ${archived[key]}, 0, 1
    )
    select day || ' ' || k || ' ' || sum(r) || ' ' || sum(h) as cell from facts group by day, k`.execute(t.ctx.db)
  return rows.map((r) => r.cell).sort()
}

describe('the daily summary email', () => {
  it('goes once per opted-in admin and day, over SMTP, with two runs at once and one after', async () => {
    t.clock.set('2026-03-02T08:00:00Z') // 03:00 in New York: 2 March
    const { a, m, add, hand, tick, at } = await desk()
    const admin = (await a.ok('POST', '/api/v1/users', { email: `boss${Date.now()}@example.com`, role: 'admin' })).user
    const clerk = (await a.ok('POST', '/api/v1/users', { email: `desk${Date.now()}@example.com`, role: 'clerk' })).user
    const set = (userId: string, enabled: boolean) =>
      a.call('PUT', `/api/v1/reports/summary-email/recipients/${userId}`, { enabled })
    expect((await set(admin.userId, true)).json()).toEqual({
      hour: 7,
      timeZone: 'America/New_York',
      unclaimedDays: 7,
      recipients: [{ userId: admin.userId, email: admin.email }],
    })
    const refused = await set(clerk.userId, true)
    expect(refused.statusCode).toBe(400)
    expect(refused.json().errors[0].additionalParameters).toBe('userId')
    // Another subscription's admin list is not this one's.
    const other = api(t, await t.newClient())
    expect((await other.ok('GET', '/api/v1/reports/summary-email')).recipients).toEqual([])
    expect(
      (await other.call('PUT', `/api/v1/reports/summary-email/recipients/${admin.userId}`, { enabled: true }))
        .statusCode,
    ).toBe(400)

    const id = await add(m.buildingId)
    await add(m.buildingId)
    await tick(2 * HOUR)
    await hand(id)
    await at('2026-03-03T11:00:00Z') // 06:00 in New York: not yet
    smtp.clear()
    expect((await t.ctx.reportSummaryJob.runOnce()).sent).toBe(0)
    await at('2026-03-03T12:30:00Z') // 07:30: the summary of 2 March is due
    const runs = await Promise.all([t.ctx.reportSummaryJob.runOnce(), t.ctx.reportSummaryJob.runOnce()])
    expect(runs.reduce((s, r) => s + r.sent, 0)).toBe(1)
    expect((await t.ctx.reportSummaryJob.runOnce()).sent).toBe(0)
    const [mail] = await smtp.waitFor(1)
    expect(smtp.received).toHaveLength(1)
    expect(mail!.mail.to).toMatchObject({ text: admin.email })
    expect(mail!.mail.subject).toBe('Mailroom summary of 2026-03-02')
    expect(mail!.mail.text).toContain('Received 2, handed over 1.')
    expect(mail!.mail.text).toContain('Building A: received 2, handed over 1')
    expect(mail!.mail.text).toContain('https://mailroom.example.test/console/reports')

    // A crash mid-send: the claim stays 'sending'; before it lapses nothing is resent, after it the
    // one in flight is sent once more, and never again once recorded.
    await at('2026-03-04T12:30:00Z')
    await sql`insert into report_summary_sends (sub_id, user_id, day, status, attempts, claimed_until)
      values (${admin.subscription}, ${admin.userId}, '2026-03-03', 'sending', 1, ${new Date('2026-03-04T12:31:00Z')})`.execute(
      t.ctx.db,
    )
    expect((await t.ctx.reportSummaryJob.runOnce()).sent).toBe(0)
    await at('2026-03-04T12:32:00Z')
    expect((await t.ctx.reportSummaryJob.runOnce()).sent).toBe(1)
    expect((await t.ctx.reportSummaryJob.runOnce()).sent).toBe(0)
    await smtp.waitFor(2)
    expect(smtp.received.map((r) => r.mail.subject)).toEqual([
      'Mailroom summary of 2026-03-02',
      'Mailroom summary of 2026-03-03',
    ])
    // Opted out: no more.
    expect((await set(admin.userId, false)).json().recipients).toEqual([])
    await at('2026-03-05T12:30:00Z')
    expect((await t.ctx.reportSummaryJob.runOnce()).sent).toBe(0)
  })
})

describe('the summary schedule', () => {
  it('is due from the local hour, the day before summed up, across DST changes', () => {
    const ny = 'America/New_York'
    expect(summaryDue(new Date('2026-03-03T11:59:00Z'), ny, 7)).toBeUndefined() // 06:59 EST
    expect(summaryDue(new Date('2026-03-03T12:00:00Z'), ny, 7)).toEqual({ day: '2026-03-02' })
    expect(summaryDue(new Date('2026-03-04T04:59:00Z'), ny, 7)).toEqual({ day: '2026-03-02' }) // 23:59 on 3 March
    // Summer time: 07:00 EDT is 11:00 UTC.
    expect(summaryDue(new Date('2026-07-01T10:59:00Z'), ny, 7)).toBeUndefined()
    expect(summaryDue(new Date('2026-07-01T11:00:00Z'), ny, 7)).toEqual({ day: '2026-06-30' })
    // Spring forward (8 March 2026): 02:00 does not happen; 03:00 EDT (07:00 UTC) is the first hour past it.
    expect(summaryDue(new Date('2026-03-08T06:59:00Z'), ny, 2)).toBeUndefined() // 01:59 EST
    expect(summaryDue(new Date('2026-03-08T07:00:00Z'), ny, 2)).toEqual({ day: '2026-03-07' })
    // Fall back (1 November 2026): 01:00 comes twice; due from the first.
    expect(summaryDue(new Date('2026-11-01T04:59:00Z'), ny, 1)).toBeUndefined()
    expect(summaryDue(new Date('2026-11-01T05:00:00Z'), ny, 1)).toEqual({ day: '2026-10-31' }) // 01:00 EDT
    expect(summaryDue(new Date('2026-11-01T06:00:00Z'), ny, 1)).toEqual({ day: '2026-10-31' }) // 01:00 EST
    expect(wallClock(new Date('2026-11-01T06:30:00Z'), ny)).toEqual({ day: '2026-11-01', hour: 1 })
    expect(summaryDue(new Date('2026-03-03T00:00:00Z'), 'UTC', 0)).toEqual({ day: '2026-03-02' })
  })
})
