import { describe, expect, it } from 'vitest'
import type { TestClient } from '../support/build-test-app.js'
import { api, trackingNumber } from '../support/factories.js'
import { useTestApp } from '../support/use-test-app.js'

// Issue 30.3: exceptions in one place. Each kind appears when its cause is written and goes when
// it is settled; filters, pages, tenancy and bad filters. Emails fail here (nothing listens on the
// SMTP port, one attempt), so a subscription that turns notifications on gets failed ones.
const t = useTestApp({ SMTP_URL: 'smtp://127.0.0.1:9', NOTIFY_MAX_ATTEMPTS: '1' })
const DAY = 86_400_000

async function setUp(client?: TestClient) {
  const c = client ?? (await t.newClient())
  let a = api(t, c)
  const m = await a.mailroom()
  // After the clock moved past the token's expiry.
  const refresh = async () => {
    a = api(t, await t.refresh(c))
  }
  const add = async (pkg: Record<string, unknown> = {}, status = 'RECEIVED', siteId = m.siteId) =>
    (
      await a.ok('POST', '/api/v1/packages', {
        package: {
          trackingNumber: trackingNumber('1ZEXC'),
          carrier: { carrierId: 'UPS' },
          receiver: { contactId: m.receiverId },
          ...pkg,
        },
        lastActivity: { status, location: { inboundSiteId: siteId } },
      })
    ).packageId as string
  const list = async (query = '') => (await a.ok('GET', `/api/v1/exceptions?${query}`)) as ExceptionList
  const counts = async (query = '') => {
    const res = await a.ok('GET', `/api/v1/exceptions/counts?${query}`)
    return Object.fromEntries((res.counts as Array<{ kind: string; count: number }>).map((x) => [x.kind, x.count]))
  }
  const handOver = (packageId: string, status = 'PICKED_UP') =>
    a.ok('PUT', `/api/v1/packages/${packageId}`, { package: {}, lastActivity: { status, location: {} } })
  const events = (name: string) =>
    t.ctx.db
      .selectFrom('package_events')
      .select(['package_id', 'data'])
      .where('sub_id', '=', c.subId)
      .where('event_name', '=', name)
      .execute()
  return { c, a, m, add, list, counts, handOver, events, refresh }
}

interface ExceptionList {
  exceptions: Array<Record<string, unknown> & { kind: string; packageId: string }>
  totalCount: number
}
const of = (l: ExceptionList, kind: string) => l.exceptions.filter((x) => x.kind === kind).map((x) => x.packageId)

describe('each kind appears with its cause and goes when settled', () => {
  it('unclaimed past N days: by the clock, until handed over', async () => {
    const s = await setUp()
    const id = await s.add()
    expect((await s.counts()).unclaimed).toBe(0)
    t.clock.advance(4 * DAY)
    await s.refresh()
    expect(await s.list('kind=unclaimed')).toEqual({
      exceptions: [
        expect.objectContaining({
          kind: 'unclaimed',
          nextAction: 'hand_over_or_return',
          packageId: id,
          currentStatus: 'RECEIVED',
          receiver: { contactId: s.m.receiverId, name: 'Ada Lovelace' },
          currentLocation: expect.objectContaining({ inboundSiteId: s.m.siteId }),
        }),
      ],
      totalCount: 1,
    })
    expect((await s.counts('unclaimedDays=5')).unclaimed).toBe(0)
    await s.handOver(id)
    expect((await s.counts()).unclaimed).toBe(0)
  })

  it('damaged: with its Exception event, until returned to sender', async () => {
    const s = await setUp()
    const id = await s.add({ damaged: true })
    expect(of(await s.list(), 'damaged')).toEqual([id])
    expect((await s.list('kind=damaged')).exceptions[0]).toMatchObject({ nextAction: 'open_package' })
    expect((await s.events('Exception')).map((e) => e.package_id)).toEqual([id])
    await s.handOver(id, 'RETURNED_TO_SENDER')
    expect((await s.counts()).damaged).toBe(0)
  })

  it('unknown format: no carrier (or internal under a foreign number), until a carrier is set', async () => {
    const s = await setUp()
    const none = await s.add({ carrier: undefined })
    const internal = await s.add({ carrier: { carrierId: 'MAILROOM' }, trackingNumber: 'HELLO WORLD 1' })
    const { trackingNumber: own } = await s.a.ok('POST', '/api/v1/trackingNumbers', undefined, 200)
    await s.add({ carrier: { carrierId: 'MAILROOM' }, trackingNumber: own })
    expect(of(await s.list('kind=unknown_format'), 'unknown_format').sort()).toEqual([none, internal].sort())
    await s.a.ok('PUT', `/api/v1/packages/${none}`, { package: { carrier: { carrierId: 'FEDEX' } } })
    expect(of(await s.list('kind=unknown_format'), 'unknown_format')).toEqual([internal])
  })

  it('unmatched recipient: an open scan issue, until a clerk chooses the recipient', async () => {
    const s = await setUp()
    const id = await s.add({ receiver: undefined })
    const issue = await s.a.ok('POST', '/api/v1/scanissues', { packageId: id, read: { name: 'A. Lovelace' } })
    const [x] = (await s.list('kind=unmatched_recipient')).exceptions
    expect(x).toMatchObject({ packageId: id, nextAction: 'match_recipient', scanIssueId: issue.scanIssueId })
    await s.a.ok(
      'POST',
      `/api/v1/scanissues/${issue.scanIssueId as string}/resolve`,
      { contactId: s.m.receiverId },
      200,
    )
    expect((await s.counts()).unmatched_recipient).toBe(0)
  })

  it('recipient departed: deactivated with parcels waiting, until they are handed over', async () => {
    const s = await setUp()
    const id = await s.add()
    await s.a.ok('PUT', `/api/v1/contacts/${s.m.receiverId}`, { status: 'inactive' })
    const [x] = (await s.list('kind=recipient_departed')).exceptions
    expect(x).toMatchObject({ packageId: id, nextAction: 'hand_over_or_return', contactId: s.m.receiverId })
    await s.handOver(id)
    expect((await s.counts()).recipient_departed).toBe(0)
  })

  it('failed notification: with its NotificationFailed event, once, until resent', async () => {
    const s = await setUp()
    await s.a.ok('PUT', '/api/v1/notifications/settings', {
      enabled: true,
      arrivalBatchSeconds: 0,
      reminderAfterHours: [],
      finalNoticeAfterHours: null,
      templates: {},
    })
    const id = await s.add()
    await t.ctx.notifications.runOnce()
    const [x] = (await s.list('kind=notification_failed')).exceptions
    expect(x).toMatchObject({ packageId: id, nextAction: 'resend_notification', notificationId: expect.any(String) })
    expect((await s.events('NotificationFailed')).map((e) => e.package_id)).toEqual([id])
    await s.a.ok('POST', `/api/v1/notifications/${x!.notificationId as string}/resend`, undefined, 200)
    expect((await s.counts()).notification_failed).toBe(0)
  })

  it('missing from its shelf: by the latest audit, told once, until filed again', async () => {
    const s = await setUp()
    await s.a.ok('PUT', `/api/v1/shelves/${s.m.shelfId}`, {}, 201)
    const tn = trackingNumber('1ZSHELF')
    const id = await s.add({ trackingNumber: tn }, 'RECEIVED', s.m.shelfId)
    t.clock.advance(1000)
    const audit = await s.a.ok('POST', `/api/v1/shelves/${s.m.shelfId}/audits`, { scans: [] }, 201)
    const [x] = (await s.list('kind=missing_from_shelf')).exceptions
    expect(x).toMatchObject({ packageId: id, nextAction: 'audit_shelf', auditId: audit.auditId, shelfId: s.m.shelfId })
    // Missing again at the next audit, untouched: still one exception, still one event.
    t.clock.advance(1000)
    await s.a.ok('POST', `/api/v1/shelves/${s.m.shelfId}/audits`, { scans: [] }, 201)
    expect((await s.counts()).missing_from_shelf).toBe(1)
    expect((await s.events('MissingFromShelf')).map((e) => e.package_id)).toEqual([id])
    t.clock.advance(1000)
    await s.a.ok('POST', `/api/v1/shelves/${s.m.shelfId}/filings`, { scans: [tn] }, 200)
    expect((await s.counts()).missing_from_shelf).toBe(0)
  })

  it("return proposed: past its site's return deadline, by the proposals job, until decided", async () => {
    const s = await setUp()
    await s.a.ok('PUT', `/api/v1/inboundsites/${s.m.siteId}/returnDeadline`, { returnAfterDays: 3 })
    const id = await s.add()
    t.clock.advance(3 * DAY + 1000)
    await s.refresh()
    await t.ctx.holds.proposals.run()
    const [x] = (await s.list('kind=return_proposed')).exceptions
    expect(x).toMatchObject({ packageId: id, nextAction: 'decide_return' })
    expect((await s.counts(`inboundSiteId=${s.m.siteId}`)).return_proposed).toBe(1)
    expect((await s.counts(`inboundSiteId=${s.m.buildingId}`)).return_proposed).toBe(0)
    const a = api(t, await t.refresh(s.c))
    const { proposals } = await a.ok('GET', '/api/v1/returnProposals')
    await a.ok('POST', `/api/v1/returnProposals/${proposals[0].proposalId as string}/confirm`, {}, 200)
    expect((await s.counts()).return_proposed).toBe(0)
  })
})

describe('the list', () => {
  it('filters by kind and site, pages oldest first, and counts every kind', async () => {
    const s = await setUp()
    const other = await s.a.site({ type: 'building', name: 'Annex', parent: s.m.siteId })
    const first = await s.add({ damaged: true }, 'RECEIVED', s.m.buildingId)
    t.clock.advance(1000)
    const second = await s.add({ carrier: undefined }, 'RECEIVED', other)
    t.clock.advance(1000)
    const third = await s.add({ damaged: true }, 'RECEIVED', other)
    const all = await s.list()
    expect(all.exceptions.map((x) => x.packageId)).toEqual([first, second, third])
    expect(all.totalCount).toBe(3)
    expect(await s.counts()).toEqual({
      unclaimed: 0,
      unmatched_recipient: 0,
      unknown_format: 1,
      damaged: 2,
      recipient_departed: 0,
      notification_failed: 0,
      missing_from_shelf: 0,
      return_proposed: 0,
    })
    expect((await s.list('size=1&page=2')).exceptions.map((x) => x.packageId)).toEqual([second])
    expect(of(await s.list('kind=damaged&size=1&page=2'), 'damaged')).toEqual([third])
    expect((await s.list(`inboundSiteId=${other}`)).exceptions.map((x) => x.packageId)).toEqual([second, third])
    expect((await s.list(`inboundSiteId=${s.m.siteId}&kind=damaged,unknown_format`)).totalCount).toBe(3)
    expect((await s.counts(`inboundSiteId=${s.m.buildingId}&kind=damaged`)).damaged).toBe(1)
  })

  it('shows a subscription its own exceptions only', async () => {
    const mine = await setUp()
    await mine.add({ damaged: true })
    const theirs = await setUp()
    expect((await theirs.list()).totalCount).toBe(0)
    const res = await theirs.a.call('GET', `/api/v1/exceptions?inboundSiteId=${mine.m.siteId}`)
    expect(res.statusCode).toBe(400)
    expect(res.json().errors[0].additionalParameters).toBe('inboundSiteId')
  })

  it('answers a bad filter with a 400 naming it', async () => {
    const s = await setUp()
    const both = ['exceptions', 'exceptions/counts']
    const cases: Array<[string, string, string[]]> = [
      ['kind=damaged,lost', 'kind', both],
      ['unclaimedDays=-1', 'unclaimedDays', both],
      ['colour=red', 'colour', both],
      ['size=500', 'size', ['exceptions']],
      ['page=0', 'page', ['exceptions']],
      // Several kinds are merged from their first 10,000 rows: further is one kind at a time.
      ['page=101&size=100', 'page', ['exceptions']],
    ]
    for (const [query, field, paths] of cases) {
      for (const path of paths) {
        const res = await s.a.call('GET', `/api/v1/${path}?${query}`)
        expect(res.statusCode, `${path}?${query}`).toBe(400)
        expect(res.json().errors.map((e: { additionalParameters: string }) => e.additionalParameters)).toContain(field)
      }
    }
  })
})
