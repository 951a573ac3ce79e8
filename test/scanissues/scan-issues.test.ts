import { describe, expect, it } from 'vitest'
import { itRefusesBadTokens } from '../support/auth-matrix.js'
import { createUser, signIn } from '../support/console-session.js'
import { api } from '../support/factories.js'
import { useTestApp } from '../support/use-test-app.js'

// The scan-issues queue (issue 27): a package received from a label photo whose recipient was not
// chosen waits with its reason and suggestions until a clerk chooses; integrations hear of both.

const t = useTestApp()

async function desk(label: string) {
  const client = await t.newClient()
  const a = api(t, client)
  const locationId = await a.location(`${label} HQ`)
  const siteId = await a.site({ type: 'site', name: `${label} Site`, locationId, primary: true })
  const robert = await a.contact('RECEIVER', 'Robert Smith', { unit: '400' })
  const rachel = await a.contact('RECEIVER', 'Rachel Smith')
  const liz = await a.contact('RECEIVER', 'Elizabeth Taylor', { aliases: ['Betsy'] })
  const mailroom = await a.contact('RECEIVER', `${label} Mailroom`, { company: `${label} Corporation`, group: true })
  let n = 0
  const receive = async (at = siteId) =>
    (
      await a.ok('POST', '/api/v1/packages', {
        package: { trackingNumber: `${label.toUpperCase()}${String(++n).padStart(6, '0')}` },
        lastActivity: { status: 'RECEIVED', location: { inboundSiteId: at } },
      })
    ).packageId as string
  return { client, a, locationId, siteId, robert, rachel, liz, mailroom, receive }
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

  it('finds a contact by an alias whatever its case and accents', async () => {
    const d = await desk('Gringotts')
    const zoe = await d.a.contact('RECEIVER', 'Penelope Quist', { aliases: ['Zoë'] })
    for (const printed of ['ZOE QUIST', 'Zoë Quist', 'QUIST, ZOË']) {
      const issue = await d.a.ok('POST', '/api/v1/scanissues', {
        packageId: await d.receive(),
        read: { name: printed },
      })
      expect(issue.suggestions[0], printed).toMatchObject({ contactId: zoe })
    }
  })

  it('finds a contact by an alias with a letter carriers print plain or with a hyphen printed as a space', async () => {
    const d = await desk('Stark')
    const soren = await d.a.contact('RECEIVER', 'Samuel Kierkegaard', { aliases: ['Søren'] })
    await d.a.contact('RECEIVER', 'Sven Kierkegaard')
    const maryAnn = await d.a.contact('RECEIVER', 'Marianne Brightwater', { aliases: ['Mary-Ann'] })
    await d.a.contact('RECEIVER', 'Annette Brightwater')
    for (const [printed, contactId] of [
      ['SOREN KIERKEGAARD', soren],
      ['KIERKEGAARD, SØREN', soren],
      ['MARY ANN BRIGHTWATER', maryAnn],
      ['MARY-ANN BRIGHTWATER', maryAnn],
      ['BRIGHTWATER, MARY ANN', maryAnn],
    ] as const) {
      const issue = await d.a.ok('POST', '/api/v1/scanissues', {
        packageId: await d.receive(),
        read: { name: printed },
      })
      expect(issue.suggestions[0], printed).toMatchObject({ contactId })
      expect(issue.suggestions[0].score, printed).toBeGreaterThan(issue.suggestions[1]?.score ?? 0)
    }
  })

  it('finds a contact whose first name has two letters beside one its longer form names', async () => {
    const d = await desk('Oceanic')
    const ed = await d.a.contact('RECEIVER', 'Ed Kahn')
    const edward = await d.a.contact('RECEIVER', 'Edward S. Kahn')
    const jo = await d.a.contact('RECEIVER', 'Jo Park')
    for (const [printed, contactId] of [
      ['KAHN, ED', ed],
      ['ED KAHN', ed],
      ['EDWARD KAHN', edward],
      ['JO PARK', jo],
    ] as const) {
      const issue = await d.a.ok('POST', '/api/v1/scanissues', {
        packageId: await d.receive(),
        read: { name: printed },
      })
      expect(issue.suggestions[0], printed).toMatchObject({ contactId })
    }
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

  it('a clerk limited to a site opens and settles issues only for packages at that site or below', async () => {
    const d = await desk('Tyrell')
    const annex = await d.a.site({ type: 'site', name: 'Tyrell Annex', locationId: d.locationId })
    const email = 'clerk@tyrell.example.com'
    await createUser(t, d.client, { email, role: 'clerk', siteId: d.siteId })
    const clerk = await signIn(t, email)
    const post = (url: string, payload: object) => t.inject({ method: 'POST', url, ...clerk.write, payload })
    const refused = async (res: Awaited<ReturnType<typeof post>>, field: string) => {
      expect(res.statusCode, res.body).toBe(400)
      expect(res.json().errors[0]).toMatchObject({
        additionalParameters: field,
        errorDescription: expect.stringContaining('outside the sites this user works at'),
      })
    }

    // Opening: a package at another site, or an issue naming another site, is refused and nothing is written.
    const there = await d.receive(annex)
    await refused(await post('/api/v1/scanissues', { packageId: there, read: { name: 'R SMITH' } }), 'packageId')
    const here = await d.receive()
    await refused(
      await post('/api/v1/scanissues', { packageId: here, read: { name: 'R SMITH' }, siteId: annex }),
      'siteId',
    )
    expect(await eventsOf(there)).toEqual([])
    expect(await eventsOf(here)).toEqual([])
    const mine = await post('/api/v1/scanissues', { packageId: here, read: { name: 'R SMITH' }, siteId: d.siteId })
    expect(mine.statusCode, mine.body).toBe(201)

    // Settling: the annex's issue (opened by the API client, who is not fenced) is refused and stays open.
    const theirs = await d.a.ok('POST', '/api/v1/scanissues', { packageId: there, read: { name: 'R SMITH' } })
    await refused(
      await post(`/api/v1/scanissues/${theirs.scanIssueId}/resolve`, { contactId: d.robert }),
      'scanIssueId',
    )
    expect((await d.a.ok('GET', `/api/v1/scanissues/${theirs.scanIssueId}`)).status).toBe('open')
    expect((await d.a.ok('GET', `/api/v1/packages/${there}?type=DETAILED`)).receiver).toBeUndefined()
    const settled = await post(`/api/v1/scanissues/${mine.json().scanIssueId}/resolve`, { contactId: d.robert })
    expect(settled.statusCode, settled.body).toBe(200)
    expect(settled.json()).toMatchObject({ status: 'settled', contactId: d.robert })
  })
})
