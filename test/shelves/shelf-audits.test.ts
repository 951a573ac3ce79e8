import { describe, expect, it } from 'vitest'
import { api, trackingNumber } from '../support/factories.js'
import { useTestApp } from '../support/use-test-app.js'

// Issue 30.1: past shelf audits read back, per shelf or per site, and one by its id.

const t = useTestApp()

async function setUp() {
  const client = await t.newClient()
  const a = api(t, client)
  const m = await a.mailroom()
  const shelf2 = await a.site({ type: 'shelf', name: 'Shelf 2', parent: m.buildingId })
  await a.ok('PUT', `/api/v1/shelves/${m.shelfId}`, {}, 201)
  await a.ok('PUT', `/api/v1/shelves/${shelf2}`, {}, 201)
  const tn = trackingNumber('1ZAUDIT')
  const { packageId } = await a.ok('POST', '/api/v1/packages', {
    package: { trackingNumber: tn, receiver: { contactId: m.receiverId } },
    lastActivity: { status: 'RECEIVED', location: { inboundSiteId: m.shelfId } },
  })
  return { a, m, shelf2, tn, packageId: packageId as string }
}

const idsOf = (list: { audits: Array<{ auditId: string }> }) => list.audits.map((x) => x.auditId)

describe('past shelf audits', () => {
  it('lists a shelf’s audits newest first with their counts, a site’s over its shelves, in pages', async () => {
    const { a, m, shelf2, tn } = await setUp()
    const first = await a.ok('POST', `/api/v1/shelves/${m.shelfId}/audits`, { scans: [] }, 201)
    const second = await a.ok('POST', `/api/v1/shelves/${m.shelfId}/audits`, { scans: [tn, 'GHOST'] }, 201)
    const other = await a.ok('POST', `/api/v1/shelves/${shelf2}/audits`, { scans: [tn] }, 201)

    const shelf1 = await a.ok('GET', `/api/v1/shelves/audits?inboundSiteId=${m.shelfId}`)
    expect(idsOf(shelf1)).toEqual([second.auditId, first.auditId])
    expect(shelf1.hasMore).toBe(false)
    expect(shelf1.audits[0]).toEqual({
      auditId: second.auditId,
      inboundSiteId: m.shelfId,
      shelfName: 'Shelf 1',
      auditedAt: second.auditedAt,
      auditedBy: expect.any(String),
      found: 1,
      missing: 0,
      misplaced: 0,
      unknown: 1,
    })
    expect(shelf1.audits[1]).toMatchObject({ found: 0, missing: 1, misplaced: 0, unknown: 0 })

    // The building: both its shelves' audits; the top site too; in pages of two.
    for (const site of [m.buildingId, m.siteId]) {
      const page1 = await a.ok('GET', `/api/v1/shelves/audits?inboundSiteId=${site}&limit=2`)
      expect(idsOf(page1)).toEqual([other.auditId, second.auditId])
      expect(page1.hasMore).toBe(true)
      const page2 = await a.ok('GET', `/api/v1/shelves/audits?inboundSiteId=${site}&limit=2&skip=2`)
      expect(idsOf(page2)).toEqual([first.auditId])
      expect(page2.hasMore).toBe(false)
    }
    expect(idsOf(await a.ok('GET', '/api/v1/shelves/audits'))).toEqual([other.auditId, second.auditId, first.auditId])
  })

  it('reads one audit back as it was answered, its parcels as recorded now', async () => {
    const { a, m, shelf2, tn, packageId } = await setUp()
    const audit = await a.ok('POST', `/api/v1/shelves/${m.shelfId}/audits`, { scans: [tn, 'GHOST'] }, 201)
    expect(await a.ok('GET', `/api/v1/shelves/audits/${audit.auditId}`)).toEqual(audit)
    // Moved since: the audit still found it there; where it is recorded now says Shelf 2.
    await a.ok('POST', `/api/v1/shelves/${shelf2}/filings`, { scans: [tn] }, 200)
    const now = await a.ok('GET', `/api/v1/shelves/audits/${audit.auditId}`)
    expect(now.found).toEqual([expect.objectContaining({ packageId, recordedAt: expect.stringContaining('Shelf 2') })])
    expect(now.unknown).toEqual(['GHOST'])
  })

  it('answers another subscription’s audit 404, an unknown site 400 naming it, and a bad page 400', async () => {
    const { a, m } = await setUp()
    const audit = await a.ok('POST', `/api/v1/shelves/${m.shelfId}/audits`, { scans: [] }, 201)
    const other = api(t, await t.newClient())
    const get = await other.call('GET', `/api/v1/shelves/audits/${audit.auditId}`)
    expect(get.statusCode).toBe(404)
    expect(get.json().errors[0].additionalCode).toBe('SHF-4041')
    expect((await other.ok('GET', '/api/v1/shelves/audits')).audits).toEqual([])
    const site = await other.call('GET', `/api/v1/shelves/audits?inboundSiteId=${m.shelfId}`)
    expect(site.statusCode).toBe(400)
    expect(site.json().errors[0].additionalParameters).toBe('inboundSiteId')
    const limit = await a.call('GET', '/api/v1/shelves/audits?limit=0')
    expect(limit.statusCode).toBe(400)
    expect(limit.json().errors[0].additionalParameters).toBe('limit')
  })
})
