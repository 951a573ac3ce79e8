import { describe, expect, it } from 'vitest'
import { itRefusesBadTokens } from '../support/auth-matrix.js'
import { api } from '../support/factories.js'
import { useTestApp } from '../support/use-test-app.js'

// The scan-issues queue (issue 27): a package received from a label photo whose recipient was not
// chosen waits with its reason and suggestions until a clerk chooses; integrations hear of both.

const t = useTestApp()

async function desk(label: string) {
  const a = api(t, await t.newClient())
  const locationId = await a.location(`${label} HQ`)
  const siteId = await a.site({ type: 'site', name: `${label} Site`, locationId, primary: true })
  const robert = await a.contact('RECEIVER', 'Robert Smith', { unit: '400' })
  const rachel = await a.contact('RECEIVER', 'Rachel Smith')
  const liz = await a.contact('RECEIVER', 'Elizabeth Taylor', { aliases: ['Betsy'] })
  const mailroom = await a.contact('RECEIVER', `${label} Mailroom`, { company: `${label} Corporation`, group: true })
  let n = 0
  const receive = async () =>
    (
      await a.ok('POST', '/api/v1/packages', {
        package: { trackingNumber: `${label.toUpperCase()}${String(++n).padStart(6, '0')}` },
        lastActivity: { status: 'RECEIVED', location: { inboundSiteId: siteId } },
      })
    ).packageId as string
  return { a, siteId, robert, rachel, liz, mailroom, receive }
}

function eventsOf(packageId: string) {
  return t.ctx.db
    .selectFrom('package_events')
    .select(['event_name', 'data'])
    .where('package_id', '=', packageId)
    .where('event_name', 'like', 'ScanIssue%')
    .orderBy('sequence')
    .execute()
}

describe('scan issues', () => {
  itRefusesBadTokens(
    () => t,
    [
      { method: 'GET', url: '/api/v1/scanissues' },
      { method: 'GET', url: '/api/v1/scanissues/sci_x' },
      { method: 'POST', url: '/api/v1/scanissues', payload: { packageId: 'pkg_x', read: {} } },
      { method: 'POST', url: '/api/v1/scanissues/sci_x/resolve', payload: { contactId: 'con_x' } },
    ],
  )

  it('opens with the reason and suggestions of the match, lists, settles with one choice, and tells integrations', async () => {
    const d = await desk('Globex')
    const packageId = await d.receive()
    const opened = await d.a.ok('POST', '/api/v1/scanissues', {
      packageId,
      read: { name: 'R. SMITH', lines: ['R. SMITH', '500 MAIN ST', 'SPRINGFIELD IL 62704'], confidence: 81 },
      siteId: d.siteId,
    })
    expect(opened).toMatchObject({
      packageId,
      reason: 'several_matches',
      status: 'open',
      read: { name: 'R. SMITH', lines: ['R. SMITH', '500 MAIN ST', 'SPRINGFIELD IL 62704'], confidence: 81 },
      siteId: d.siteId,
    })
    expect(opened.trackingNumber).toMatch(/^GLOBEX/)
    expect(opened.suggestions.map((s: { contactId: string }) => s.contactId).sort()).toEqual(
      [d.rachel, d.robert].sort(),
    )

    const list = await d.a.ok('GET', '/api/v1/scanissues')
    expect(list.totalCount).toBe(1)
    expect(list.scanIssues[0]).toEqual(opened)
    expect(await d.a.ok('GET', `/api/v1/scanissues/${opened.scanIssueId}`)).toEqual(opened)

    const settled = await d.a.ok(
      'POST',
      `/api/v1/scanissues/${opened.scanIssueId}/resolve`,
      { contactId: d.robert },
      200,
    )
    expect(settled).toMatchObject({ status: 'settled', contactId: d.robert, scanIssueId: opened.scanIssueId })
    expect(settled.settledAt).toEqual(expect.any(String))
    const record = await d.a.ok('GET', `/api/v1/packages/${packageId}?type=DETAILED`)
    expect(record.receiver.contactId).toBe(d.robert)

    expect((await d.a.ok('GET', '/api/v1/scanissues')).totalCount).toBe(0)
    expect((await d.a.ok('GET', '/api/v1/scanissues?status=settled')).scanIssues[0].scanIssueId).toBe(
      opened.scanIssueId,
    )

    const events = await eventsOf(packageId)
    expect(events.map((e) => e.event_name)).toEqual(['ScanIssueOpened', 'ScanIssueSettled'])
    expect(events[0]!.data).toMatchObject({
      packageId,
      scanIssue: { scanIssueId: opened.scanIssueId, reason: 'several_matches', status: 'open' },
    })
    expect(events[1]!.data).toMatchObject({ scanIssue: { status: 'settled', contactId: d.robert } })

    // Settled once: a second choice is refused and changes nothing.
    const again = await d.a.call('POST', `/api/v1/scanissues/${opened.scanIssueId}/resolve`, { contactId: d.rachel })
    expect(again.statusCode, again.body).toBe(409)
    expect(again.json().errors[0]).toMatchObject({ errorCode: 'validation_error', additionalCode: 'SCI-4091' })
    expect((await d.a.ok('GET', `/api/v1/packages/${packageId}?type=DETAILED`)).receiver.contactId).toBe(d.robert)
  })

  it('says why: no match, business, partial; the given reason wins', async () => {
    const d = await desk('Initech')
    const open = async (read: Record<string, unknown>, extra: Record<string, unknown> = {}) =>
      d.a.ok('POST', '/api/v1/scanissues', { packageId: await d.receive(), read, ...extra })
    expect(await open({ name: 'ZEBEDEE QUUX' })).toMatchObject({ reason: 'no_match', suggestions: [] })
    const business = await open({ company: 'UNKNOWN HOLDINGS LTD' }, { siteId: d.siteId })
    expect(business.reason).toBe('business')
    const partial = await open({ name: 'ROBRT SMYTH', unit: '400' })
    expect(partial.reason).toBe('partial_match')
    expect(partial.suggestions[0].contactId).toBe(d.robert)
    expect(await open({ name: 'BETSY TAYLOR' }, { reason: 'partial_match' })).toMatchObject({
      reason: 'partial_match',
      suggestions: [expect.objectContaining({ contactId: d.liz })],
    })
  })

  it('one open issue per package; a package or issue of another subscription is not found', async () => {
    const d = await desk('Umbrella')
    const other = await desk('Stark')
    const packageId = await d.receive()
    await d.a.ok('POST', '/api/v1/scanissues', { packageId, read: { name: 'R SMITH' } })
    const twice = await d.a.call('POST', '/api/v1/scanissues', { packageId, read: { name: 'R SMITH' } })
    expect(twice.statusCode, twice.body).toBe(409)
    expect(twice.json().errors[0]).toMatchObject({ errorCode: 'already_exists', additionalParameters: 'packageId' })

    const foreign = await other.a.call('POST', '/api/v1/scanissues', { packageId, read: { name: 'R SMITH' } })
    expect(foreign.statusCode, foreign.body).toBe(400)
    expect(foreign.json().errors[0].additionalParameters).toBe('packageId')
    const [issue] = (await d.a.ok('GET', '/api/v1/scanissues')).scanIssues
    expect((await other.a.call('GET', `/api/v1/scanissues/${issue.scanIssueId}`)).statusCode).toBe(404)
    const theirs = await other.a.call('POST', `/api/v1/scanissues/${issue.scanIssueId}/resolve`, {
      contactId: other.robert,
    })
    expect(theirs.statusCode).toBe(404)
    expect((await other.a.ok('GET', '/api/v1/scanissues')).totalCount).toBe(0)
  })

  it('refuses a contact that is not the subscription’s, naming contactId, and the issue stays open', async () => {
    const d = await desk('Hooli')
    const other = await desk('Pied')
    const packageId = await d.receive()
    const issue = await d.a.ok('POST', '/api/v1/scanissues', { packageId, read: { name: 'R SMITH' } })
    const res = await d.a.call('POST', `/api/v1/scanissues/${issue.scanIssueId}/resolve`, { contactId: other.robert })
    expect(res.statusCode, res.body).toBe(400)
    expect(res.json().errors[0].additionalParameters).toBe('contactId')
    expect((await d.a.ok('GET', `/api/v1/scanissues/${issue.scanIssueId}`)).status).toBe('open')
    expect(await eventsOf(packageId)).toHaveLength(1)
  })

  it('two clerks settling at once: one wins, the other gets 409, and the package has the winner’s receiver', async () => {
    const d = await desk('Soylent')
    const packageId = await d.receive()
    const issue = await d.a.ok('POST', '/api/v1/scanissues', { packageId, read: { name: 'R SMITH' } })
    const url = `/api/v1/scanissues/${issue.scanIssueId}/resolve`
    const answers = await Promise.all([
      d.a.call('POST', url, { contactId: d.robert }),
      d.a.call('POST', url, { contactId: d.rachel }),
    ])
    expect(answers.map((r) => r.statusCode).sort()).toEqual([200, 409])
    const settled = await d.a.ok('GET', `/api/v1/scanissues/${issue.scanIssueId}`)
    expect(settled.status).toBe('settled')
    const record = await d.a.ok('GET', `/api/v1/packages/${packageId}?type=DETAILED`)
    expect(record.receiver.contactId).toBe(settled.contactId)
    expect((await eventsOf(packageId)).map((e) => e.event_name)).toEqual(['ScanIssueOpened', 'ScanIssueSettled'])
    // The loser's package update was rolled back with its claim: one receiver change, not two.
    const { activities } = await d.a.ok('GET', `/api/v1/packages/${packageId}?type=ACTIVITIES`)
    expect(activities).toHaveLength(2)
  })

  it('a retry of the same choice (its answer lost) gets the settled issue, and nothing happens twice', async () => {
    const d = await desk('Wonka')
    const packageId = await d.receive()
    const issue = await d.a.ok('POST', '/api/v1/scanissues', { packageId, read: { name: 'R SMITH' } })
    const url = `/api/v1/scanissues/${issue.scanIssueId}/resolve`
    const [first, second] = await Promise.all([
      d.a.call('POST', url, { contactId: d.robert }),
      d.a.call('POST', url, { contactId: d.robert }),
    ])
    expect([first.statusCode, second.statusCode]).toEqual([200, 200])
    expect(second.json()).toEqual(first.json())
    const retry = await d.a.ok('POST', url, { contactId: d.robert }, 200)
    expect(retry).toEqual(first.json())
    expect(retry).toMatchObject({ status: 'settled', contactId: d.robert })
    expect((await eventsOf(packageId)).map((e) => e.event_name)).toEqual(['ScanIssueOpened', 'ScanIssueSettled'])
    const { activities } = await d.a.ok('GET', `/api/v1/packages/${packageId}?type=ACTIVITIES`)
    expect(activities).toHaveLength(2)
  })

  it('a contact who has moved out is no longer suggested', async () => {
    const d = await desk('Cyberdyne')
    await d.a.contact('RECEIVER', 'Quincy Adams', { moveOutDate: '2020-01-31' })
    const stays = await d.a.contact('RECEIVER', 'Abigail Adams', { moveOutDate: '2999-12-31' })
    const gone = await d.a.ok('POST', '/api/v1/scanissues', {
      packageId: await d.receive(),
      read: { name: 'QUINCY ADAMS' },
    })
    expect(gone).toMatchObject({ reason: 'no_match', suggestions: [] })
    const here = await d.a.ok('POST', '/api/v1/scanissues', {
      packageId: await d.receive(),
      read: { name: 'ABIGAIL ADAMS' },
    })
    expect(here.suggestions.map((s: { contactId: string }) => s.contactId)).toEqual([stays])
  })

  it('bad input is a 400 naming the field', async () => {
    const d = await desk('Vandelay')
    const packageId = await d.receive()
    for (const [body, field] of [
      [{ packageId, read: { confidence: 101 } }, 'read.confidence'],
      [{ packageId, read: {}, reason: 'maybe' }, 'reason'],
      [{ read: {} }, 'packageId'],
      [{ packageId, read: { lines: 'x' } }, 'read.lines'],
      [{ packageId, read: {}, imageId: 'img_not_this_packages' }, 'imageId'],
    ] as const) {
      const res = await d.a.call('POST', '/api/v1/scanissues', body)
      expect(res.statusCode, res.body).toBe(400)
      expect(res.json().errors.map((e: { additionalParameters: string }) => e.additionalParameters)).toContain(field)
    }
    expect((await d.a.call('GET', '/api/v1/scanissues?status=closed')).statusCode).toBe(400)
  })
})
