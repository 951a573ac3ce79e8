import { describe, expect, it } from 'vitest'
import { api, trackingNumber } from '../support/factories.js'
import { useTestApp } from '../support/use-test-app.js'

// Issue 30.2 through HTTP: recipient holds (and the reminders they pause), forwards to a site or
// an address, return deadlines per site and the proposals a clerk confirms, dismisses or extends.
const t = useTestApp()
const HOUR = 3600_000
const DAY = 24 * HOUR
const day = (at: Date) => at.toISOString().slice(0, 10)

/**
 * Two subscriptions, each with a mailroom; `a()` and `o()` call as each with a token issued now
 * (the tests move the clock past a token's life).
 */
async function world() {
  const mine = await t.newClient()
  const theirs = await t.newClient()
  const m = await api(t, mine).mailroom()
  const om = await api(t, theirs).mailroom()
  const a = async () => api(t, await t.refresh(mine))
  const o = async () => api(t, await t.refresh(theirs))
  const receive = async (receiverId = m.receiverId, siteId = m.shelfId) => {
    const { packageId } = await (
      await a()
    ).ok('POST', '/api/v1/packages', {
      package: { trackingNumber: trackingNumber('1ZHOLD'), receiver: { contactId: receiverId } },
      lastActivity: { status: 'RECEIVED', location: { inboundSiteId: siteId } },
    })
    return packageId as string
  }
  return { mine, m, om, a, o, receive }
}

const field = (res: { statusCode: number; json(): { errors: Array<{ additionalParameters: string }> } }) => {
  expect(res.statusCode).toBe(400)
  return [...new Set(res.json().errors.map((e) => e.additionalParameters))]
}

const eventsOf = async (packageId: string) =>
  (
    await t.ctx.db
      .selectFrom('package_events')
      .select(['event_name'])
      .where('package_id', '=', packageId)
      .where('variant', '=', 'tracking')
      .orderBy('sequence')
      .execute()
  ).map((e) => e.event_name)

const lastActivity = async (a: ReturnType<typeof api>, packageId: string) => {
  const { activities } = await a.ok('GET', `/api/v1/packages/${packageId}?type=ACTIVITIES`)
  return activities[activities.length - 1]
}

describe('recipient holds', () => {
  it('puts a contact on hold, lists it with onHoldUntil, lifts it; refuses bad input and other subscriptions', async () => {
    const w = await world()
    const [a, o] = [await w.a(), await w.o()]
    const ada = await a.contact('RECEIVER', 'Ada Held')
    const today = day(t.clock.now())
    const until = day(new Date(t.clock.now().getTime() + 5 * DAY))
    const hold = await a.ok('POST', `/api/v1/contacts/${ada}/holds`, {
      startDate: today,
      endDate: until,
      reason: 'Vacation',
    })
    expect(hold).toMatchObject({ contactId: ada, startDate: today, endDate: until, reason: 'Vacation', inForce: true })
    expect(hold.createdBy).toBe(w.mine.clientId)
    const listed = await a.ok('GET', `/api/v1/contacts/${ada}/holds`)
    expect(listed).toMatchObject({ onHoldUntil: until, holds: [{ holdId: hold.holdId }] })

    expect(
      field(await a.call('POST', `/api/v1/contacts/${ada}/holds`, { startDate: until, endDate: today, reason: 'x' })),
    ).toEqual(['endDate'])
    expect(
      field(
        await a.call('POST', `/api/v1/contacts/${ada}/holds`, { startDate: '2026-13-01', endDate: until, reason: 'x' }),
      ),
    ).toEqual(['startDate'])
    expect(field(await a.call('POST', `/api/v1/contacts/${ada}/holds`, { startDate: today, endDate: until }))).toEqual([
      'reason',
    ])
    expect(
      field(
        await a.call('POST', `/api/v1/contacts/${ada}/holds`, {
          startDate: '2020-01-01',
          endDate: '2020-01-02',
          reason: 'x',
        }),
      ),
    ).toEqual(['endDate'])
    // Nothing was written by the refusals.
    expect((await a.ok('GET', `/api/v1/contacts/${ada}/holds`)).holds).toHaveLength(1)

    // Another subscription sees no such contact, and cannot hold or lift.
    expect((await o.call('GET', `/api/v1/contacts/${ada}/holds`)).statusCode).toBe(404)
    expect(
      (await o.call('POST', `/api/v1/contacts/${ada}/holds`, { startDate: today, endDate: until, reason: 'x' }))
        .statusCode,
    ).toBe(404)
    expect((await o.call('DELETE', `/api/v1/contacts/${ada}/holds/${hold.holdId}`)).statusCode).toBe(404)

    // Lifted: it ended now, kept in the history, no longer in force.
    t.clock.advance(HOUR)
    await a.ok('DELETE', `/api/v1/contacts/${ada}/holds/${hold.holdId}`)
    const after = await a.ok('GET', `/api/v1/contacts/${ada}/holds`)
    expect(after.onHoldUntil).toBeUndefined()
    // Its last day is the day it was lifted on (the next one, when the hour crossed midnight UTC).
    expect(after.holds).toMatchObject([{ holdId: hold.holdId, inForce: false, endDate: day(t.clock.now()) }])
    expect((await a.call('DELETE', `/api/v1/contacts/${ada}/holds/hld_nope`)).statusCode).toBe(404)
  })

  it('pauses reminders while a hold lasts, then resumes them counted from its end', async () => {
    const w = await world()
    const a = await w.a()
    const receive = w.receive
    await a.ok('PUT', '/api/v1/notifications/settings', {
      enabled: true,
      arrivalBatchSeconds: 60,
      reminderAfterHours: [24, 48],
      finalNoticeAfterHours: null,
      templates: {},
    })
    const bo = await a.contact('RECEIVER', 'Bo Away', { email: 'bo@example.com' })
    const free = await a.contact('RECEIVER', 'Cy Here', { email: 'cy@example.com' })
    await receive(bo)
    await receive(free)
    const run = () => t.ctx.notifications.runOnce()
    t.clock.advance(2 * 60_000)
    await run()
    // Bo is away from today for three days (through the day after tomorrow).
    const start = t.clock.now()
    await a.ok('POST', `/api/v1/contacts/${bo}/holds`, {
      startDate: day(start),
      endDate: day(new Date(start.getTime() + 2 * DAY)),
      reason: 'Leave',
    })
    const reminders = async (contactId: string) => {
      const { notifications } = await (await w.a()).ok('GET', `/api/v1/notifications?contactId=${contactId}`)
      return (notifications as Array<{ kind: string; step?: number }>)
        .filter((n) => n.kind === 'REMINDER')
        .map((n) => n.step)
    }
    // Both reminder steps are due for Cy; none for Bo while the hold lasts.
    t.clock.advance(49 * HOUR)
    await run()
    expect(await reminders(free)).toEqual([2])
    expect(await reminders(bo)).toEqual([])
    // The hold ends at midnight UTC after its last day; the first step comes 24 h after that, alone.
    const holdEnd = new Date(`${day(new Date(start.getTime() + 3 * DAY))}T00:00:00.000Z`)
    t.clock.set(new Date(holdEnd.getTime() + 23 * HOUR))
    await run()
    expect(await reminders(bo)).toEqual([])
    t.clock.advance(2 * HOUR)
    await run()
    expect(await reminders(bo)).toEqual([1])
    t.clock.advance(24 * HOUR)
    await run()
    expect((await reminders(bo)).sort()).toEqual([1, 2])
  })
})

describe('forwards', () => {
  it('forwards to another site (a history entry, an Updated event) and to an address (FORWARDED, Forwarded)', async () => {
    const w = await world()
    const { m, receive } = w
    const a = await w.a()
    const annex = await a.site({ type: 'building', name: 'Annex', parent: m.siteId })
    const p = await receive()

    const moved = await a.ok('POST', `/api/v1/packages/${p}/forward`, { inboundSiteId: annex, comment: 'by cart' }, 200)
    expect(moved).toMatchObject({ packageId: p, currentStatus: 'RECEIVED', currentLocation: { inboundSiteId: annex } })
    expect(moved.packageLocation).toBeUndefined()
    const hop = await lastActivity(a, p)
    expect(hop).toMatchObject({ location: { inboundSiteId: annex }, userName: w.mine.clientId })
    expect(hop.comment).toMatch(/^Forwarded to .*Annex — by cart$/)
    expect(await eventsOf(p)).toEqual(['Acceptance', 'Received', 'Updated'])

    const away = await a.ok('POST', `/api/v1/packages/${p}/forward`, { address: '12 Rue de la Paix, Paris' }, 200)
    expect(away.currentStatus).toBe('FORWARDED')
    expect((await lastActivity(a, p)).comment).toBe('Forwarded to 12 Rue de la Paix, Paris')
    expect(await eventsOf(p)).toEqual(['Acceptance', 'Received', 'Updated', 'Forwarded'])
    // Its wait is over: not waiting any more, so not forwarded again.
    const again = await a.call('POST', `/api/v1/packages/${p}/forward`, { address: 'Elsewhere' })
    expect(again.statusCode).toBe(409)
    expect(again.json().errors[0].additionalCode).toBe('FWD-4090')
  })

  it('refuses bad input naming the field, and another subscription’s package or site', async () => {
    const w = await world()
    const { m, receive } = w
    const [a, o] = [await w.a(), await w.o()]
    const p = await receive()
    expect(field(await a.call('POST', `/api/v1/packages/${p}/forward`, {}))).toEqual(['inboundSiteId'])
    expect(
      field(await a.call('POST', `/api/v1/packages/${p}/forward`, { inboundSiteId: m.siteId, address: 'x' })),
    ).toEqual(['address'])
    expect(field(await a.call('POST', `/api/v1/packages/${p}/forward`, { inboundSiteId: 'site_nope' }))).toEqual([
      'inboundSiteId',
    ])
    expect(field(await a.call('POST', `/api/v1/packages/${p}/forward`, { inboundSiteId: m.shelfId }))).toEqual([
      'inboundSiteId',
    ])
    expect(field(await a.call('POST', `/api/v1/packages/${p}/forward`, { address: 'x'.repeat(501) }))).toEqual([
      'address',
    ])
    const theirs = w.om.siteId
    expect(field(await a.call('POST', `/api/v1/packages/${p}/forward`, { inboundSiteId: theirs }))).toEqual([
      'inboundSiteId',
    ])
    expect((await o.call('POST', `/api/v1/packages/${p}/forward`, { address: 'x' })).statusCode).toBe(404)
    expect((await a.ok('GET', `/api/v1/packages/${p}?type=DETAILED`)).currentLocation.inboundSiteId).toBe(m.shelfId)
  })
})

describe('returns to sender', () => {
  it('sets a deadline a site inherits; refuses bad input and other subscriptions', async () => {
    const w = await world()
    const { m } = w
    const [a, o] = [await w.a(), await w.o()]
    expect(
      await a.ok('PUT', `/api/v1/inboundsites/${m.buildingId}/returnDeadline`, { returnAfterDays: 3 }),
    ).toMatchObject({
      returnAfterDays: 3,
      effective: { returnAfterDays: 3, inboundSiteId: m.buildingId },
    })
    expect(await a.ok('GET', `/api/v1/inboundsites/${m.shelfId}/returnDeadline`)).toEqual({
      inboundSiteId: m.shelfId,
      returnAfterDays: null,
      effective: { returnAfterDays: 3, inboundSiteId: m.buildingId },
    })
    expect(await a.ok('GET', `/api/v1/inboundsites/${m.siteId}/returnDeadline`)).toEqual({
      inboundSiteId: m.siteId,
      returnAfterDays: null,
    })
    expect(
      field(await a.call('PUT', `/api/v1/inboundsites/${m.shelfId}/returnDeadline`, { returnAfterDays: 0 })),
    ).toEqual(['returnAfterDays'])
    expect(field(await a.call('PUT', `/api/v1/inboundsites/${m.shelfId}/returnDeadline`, {}))).toEqual([
      'returnAfterDays',
    ])
    expect((await o.call('GET', `/api/v1/inboundsites/${m.shelfId}/returnDeadline`)).statusCode).toBe(404)
    expect(
      (await o.call('PUT', `/api/v1/inboundsites/${m.shelfId}/returnDeadline`, { returnAfterDays: 9 })).statusCode,
    ).toBe(404)
    await a.ok('PUT', `/api/v1/inboundsites/${m.buildingId}/returnDeadline`, { returnAfterDays: null })
    expect((await a.ok('GET', `/api/v1/inboundsites/${m.shelfId}/returnDeadline`)).effective).toBeUndefined()
  })

  it('proposes each overdue parcel once (two runs, two workers); a clerk confirms, dismisses or extends', async () => {
    const w = await world()
    const { m, receive } = w
    const a = await w.a()
    await a.ok('PUT', `/api/v1/inboundsites/${m.buildingId}/returnDeadline`, { returnAfterDays: 3 })
    const onHold = await a.contact('RECEIVER', 'Di Away')
    const [toReturn, toDismiss, toExtend, fresh, held] = [
      await receive(),
      await receive(),
      await receive(),
      '',
      await receive(onHold),
    ]
    void fresh
    const today = day(t.clock.now())
    await a.ok('POST', `/api/v1/contacts/${onHold}/holds`, {
      startDate: today,
      endDate: day(new Date(t.clock.now().getTime() + 10 * DAY)),
      reason: 'Sabbatical',
    })
    t.clock.advance(2 * DAY)
    const young = await receive()
    t.clock.advance(DAY + HOUR)
    const job = t.ctx.holds.proposals
    const [x, y] = await Promise.all([job.run(), job.run()])
    expect(x + y).toBe(3)
    expect(await job.run()).toBe(0)

    const [a2, o] = [await w.a(), await w.o()]
    const list = await a2.ok('GET', '/api/v1/returnProposals')
    expect(list.totalCount).toBe(3)
    const ids = list.proposals.map((p: { packageId: string }) => p.packageId)
    expect(ids.sort()).toEqual([toReturn, toDismiss, toExtend].sort())
    expect(ids).not.toContain(young)
    expect(ids).not.toContain(held)
    const byPackage = new Map(
      list.proposals.map((p: { packageId: string; proposalId: string }) => [p.packageId, p.proposalId]),
    )
    expect(list.proposals[0]).toMatchObject({
      deadlineDays: 3,
      inboundSiteId: m.shelfId,
      receiver: { contactId: m.receiverId },
    })
    // Another subscription sees none of them and can decide none.
    expect(await o.ok('GET', '/api/v1/returnProposals')).toEqual({ proposals: [], totalCount: 0 })
    expect((await o.call('POST', `/api/v1/returnProposals/${byPackage.get(toReturn)}/confirm`, {})).statusCode).toBe(
      404,
    )

    const returned = await a2.ok(
      'POST',
      `/api/v1/returnProposals/${byPackage.get(toReturn)}/confirm`,
      { comment: 'label printed' },
      200,
    )
    expect(returned.currentStatus).toBe('RETURNED_TO_SENDER')
    expect(await lastActivity(a2, toReturn)).toMatchObject({
      status: 'RETURNED_TO_SENDER',
      userName: w.mine.clientId,
      comment: 'Returned to sender: not collected within 3 days — label printed',
    })
    expect(await eventsOf(toReturn)).toEqual(['Acceptance', 'Received', 'ReturnToSender'])
    // No body at all is a confirm without a comment.
    const twice = await a2.call('POST', `/api/v1/returnProposals/${byPackage.get(toReturn)}/confirm`)
    expect(twice.statusCode).toBe(409)
    expect(twice.json().errors[0].additionalCode).toBe('RTN-4090')

    await a2.ok('POST', `/api/v1/returnProposals/${byPackage.get(toDismiss)}/dismiss`, undefined, 200)
    expect(
      field(await a2.call('POST', `/api/v1/returnProposals/${byPackage.get(toExtend)}/extend`, { days: 0 })),
    ).toEqual(['days'])
    await a2.ok('POST', `/api/v1/returnProposals/${byPackage.get(toExtend)}/extend`, { days: 2 }, 200)
    expect((await a2.ok('GET', '/api/v1/returnProposals')).proposals).toEqual([])
    expect((await a2.ok('GET', `/api/v1/packages/${toDismiss}?type=DETAILED`)).currentStatus).toBe('RECEIVED')

    // The next runs propose the young parcel, not the dismissed one again; the extension ends.
    t.clock.advance(2 * DAY)
    expect(await job.run()).toBe(1)
    const a3 = await w.a()
    const later = (await a3.ok('GET', '/api/v1/returnProposals')).proposals.map(
      (p: { packageId: string }) => p.packageId,
    )
    expect(later.sort()).toEqual([toExtend, young].sort())
  })
})
