import { PDFDocument } from 'pdf-lib'
import { describe, expect, it } from 'vitest'
import { readBarcodesFromImage } from '../../src/decode/image/index.js'
import { barcodePng } from '../../src/shelves/model/label.js'
import { createUser, signIn } from '../support/console-session.js'
import { api, trackingNumber } from '../support/factories.js'
import { useTestApp } from '../support/use-test-app.js'

const t = useTestApp()

/** A mailroom with two shelves made shelves (label codes), and two waiting parcels. */
async function setUp() {
  const client = await t.newClient()
  const a = api(t, client)
  const m = await a.mailroom()
  const shelf2 = await a.site({ type: 'shelf', name: 'Shelf 2', parent: m.buildingId })
  const s1 = await a.ok('PUT', `/api/v1/shelves/${m.shelfId}`, { kind: 'shelf' }, 201)
  const s2 = await a.ok('PUT', `/api/v1/shelves/${shelf2}`, { kind: 'bin' }, 201)
  const add = async () => {
    const tn = trackingNumber('1ZSHELF')
    const { packageId } = await a.ok('POST', '/api/v1/packages', {
      package: { trackingNumber: tn, receiver: { contactId: m.receiverId } },
      lastActivity: { status: 'RECEIVED', location: { inboundSiteId: m.siteId } },
    })
    return { tn, packageId: packageId as string }
  }
  return { a, client, m, shelf2, s1, s2, p1: await add(), p2: await add() }
}

describe('shelves', () => {
  it('gives a storage site a label code that stays, and finds the shelf by it', async () => {
    const { a, m, s1, s2, shelf2 } = await setUp()
    expect(s1).toMatchObject({ inboundSiteId: m.shelfId, kind: 'shelf', name: 'Shelf 1', active: true })
    expect(s1.code).toMatch(/^SHELF-[0-9A-Z]{6}$/)
    expect(s2.kind).toBe('bin')
    // Again: the same code, another kind, 200.
    const again = await a.ok('PUT', `/api/v1/shelves/${m.shelfId}`, { kind: 'cage' }, 200)
    expect(again).toMatchObject({ code: s1.code, kind: 'cage' })
    expect(await a.ok('GET', `/api/v1/shelves/codes/${s1.code.toLowerCase()}`)).toMatchObject({
      inboundSiteId: m.shelfId,
    })
    const list = await a.ok('GET', '/api/v1/shelves')
    expect(list.shelves.map((s: { inboundSiteId: string }) => s.inboundSiteId).sort()).toEqual(
      [m.shelfId, shelf2].sort(),
    )
  })

  it('refuses a top-tier site, an unknown site, a bad kind, and another subscription’s shelf', async () => {
    const { a, m, s1 } = await setUp()
    const top = await a.call('PUT', `/api/v1/shelves/${m.siteId}`, {})
    expect(top.statusCode).toBe(400)
    expect(top.json().errors[0]).toMatchObject({ additionalCode: 'SHF-4001', additionalParameters: 'inboundSiteId' })
    expect((await a.call('PUT', '/api/v1/shelves/site_nope', {})).statusCode).toBe(404)
    const kind = await a.call('PUT', `/api/v1/shelves/${m.shelfId}`, { kind: 'drawer' })
    expect(kind.statusCode).toBe(400)
    expect(kind.json().errors[0].additionalParameters).toBe('kind')
    const other = api(t, await t.newClient())
    expect((await other.call('GET', `/api/v1/shelves/${m.shelfId}`)).statusCode).toBe(404)
    expect((await other.call('GET', `/api/v1/shelves/codes/${s1.code}`)).statusCode).toBe(404)
    expect((await other.call('POST', `/api/v1/shelves/${m.shelfId}/filings`, { scans: ['X'] })).statusCode).toBe(404)
  })

  it('files scanned parcels on a shelf with a history entry; moving is filing again', async () => {
    const { a, m, shelf2, p1, p2 } = await setUp()
    const res = await a.ok(
      'POST',
      `/api/v1/shelves/${m.shelfId}/filings`,
      { scans: [p1.tn, p2.packageId, 'NOPE123'] },
      200,
    )
    expect(res.results.map((r: { outcome: string }) => r.outcome)).toEqual(['filed', 'filed', 'not_found'])
    const rec = await a.ok('GET', `/api/v1/packages/${p1.packageId}?type=DETAILED`)
    expect(rec.currentLocation.inboundSiteId).toBe(m.shelfId)
    expect(rec.packageLocation).toBe('Shelf 1')
    expect(rec.currentStatus).toBe('RECEIVED')
    // Again on the same shelf: nothing written.
    const again = await a.ok('POST', `/api/v1/shelves/${m.shelfId}/filings`, { scans: [p1.tn] }, 200)
    expect(again.results[0].outcome).toBe('already_there')
    // Move: scan the parcel, then the other shelf.
    const moved = await a.ok('POST', `/api/v1/shelves/${shelf2}/filings`, { scans: [p1.tn] }, 200)
    expect(moved.results[0]).toMatchObject({ outcome: 'filed', from: expect.stringContaining('Shelf 1') })
    const acts = (await a.ok('GET', `/api/v1/packages/${p1.packageId}?type=ACTIVITIES`)).activities as Array<{
      location?: { inboundSiteId: string }
      packageLocation?: string
    }>
    expect(acts.map((x) => x.packageLocation ?? null).slice(-2)).toEqual(['Shelf 1', 'Shelf 2'])
    expect(acts.length).toBe(3)
  })

  it('does not move a parcel already handed over', async () => {
    const { a, m, p1 } = await setUp()
    await a.ok('PUT', `/api/v1/packages/${p1.packageId}`, {
      package: { givenTo: { contactId: m.receiverId } },
      lastActivity: { status: 'PICKED_UP' },
    })
    const res = await a.ok('POST', `/api/v1/shelves/${m.shelfId}/filings`, { scans: [p1.tn] }, 200)
    expect(res.results[0]).toMatchObject({ outcome: 'finished', status: 'PICKED_UP' })
  })

  it('answers each scan a clerk limited to a building may not move as refused, and files the others', async () => {
    const { a, client, m, p1 } = await setUp()
    const email = `shelf-clerk-${Date.now()}@shelves.example.com`
    await createUser(t, client, { email, role: 'clerk', siteId: m.buildingId })
    const clerk = await signIn(t, email)
    const { packageId: mine } = await a.ok('POST', '/api/v1/packages', {
      package: { trackingNumber: trackingNumber('1ZSHELF'), receiver: { contactId: m.receiverId } },
      lastActivity: { status: 'RECEIVED', location: { inboundSiteId: m.buildingId } },
    })
    // p1 waits at the mailroom's top site, above the clerk's building.
    const res = await t.inject({
      method: 'POST',
      url: `/api/v1/shelves/${m.shelfId}/filings`,
      ...clerk.write,
      payload: { scans: [mine, p1.tn] },
    })
    expect(res.statusCode, res.body).toBe(200)
    const [filed, refused] = res.json().results
    expect(filed).toMatchObject({ outcome: 'filed', packageId: mine })
    expect(refused).toMatchObject({ outcome: 'refused', packageId: p1.packageId, status: 'RECEIVED' })
    expect(refused.errors[0]).toMatchObject({
      field: 'packageId',
      description: expect.stringContaining('outside'),
      code: 'GEN-4000',
    })
    expect((await a.ok('GET', `/api/v1/packages/${p1.packageId}?type=DETAILED`)).currentLocation.inboundSiteId).toBe(
      m.siteId,
    )
    expect((await a.ok('GET', `/api/v1/packages/${mine}?type=DETAILED`)).currentLocation.inboundSiteId).toBe(m.shelfId)
  })

  it('refuses filing on or auditing a shelf outside a clerk’s sites, naming the shelf', async () => {
    const { a, client, m, p1 } = await setUp()
    const east = await a.site({ type: 'building', name: 'East', parent: m.siteId })
    const eastShelf = await a.site({ type: 'shelf', name: 'East 1', parent: east })
    await a.ok('PUT', `/api/v1/shelves/${eastShelf}`, { kind: 'shelf' }, 201)
    const email = `east-clerk-${Date.now()}@shelves.example.com`
    await createUser(t, client, { email, role: 'clerk', siteId: m.buildingId })
    const clerk = await signIn(t, email)
    for (const what of ['audits', 'filings']) {
      const res = await t.inject({
        method: 'POST',
        url: `/api/v1/shelves/${eastShelf}/${what}`,
        ...clerk.write,
        payload: { scans: [p1.tn] },
      })
      expect(res.statusCode, what).toBe(400)
      expect(res.json().errors[0].additionalParameters, what).toBe('inboundSiteId')
    }
    // Its own building's shelf it audits.
    const own = await t.inject({
      method: 'POST',
      url: `/api/v1/shelves/${m.shelfId}/audits`,
      ...clerk.write,
      payload: { scans: [] },
    })
    expect(own.statusCode, own.body).toBe(201)
  })

  it('refuses an empty or oversized scan list naming the field', async () => {
    const { a, m } = await setUp()
    const empty = await a.call('POST', `/api/v1/shelves/${m.shelfId}/filings`, { scans: [] })
    expect(empty.statusCode).toBe(400)
    expect(empty.json().errors[0].additionalParameters).toBe('scans')
    const many = await a.call('POST', `/api/v1/shelves/${m.shelfId}/filings`, { scans: Array(201).fill('A') })
    expect(many.statusCode).toBe(400)
  })

  it('audits a shelf: found, missing, misplaced and unknown, and keeps nothing moved', async () => {
    const { a, m, shelf2, p1, p2 } = await setUp()
    await a.ok('POST', `/api/v1/shelves/${m.shelfId}/filings`, { scans: [p1.tn, p2.tn] }, 200)
    const p3 = trackingNumber('1ZSHELF')
    const { packageId: p3id } = await a.ok('POST', '/api/v1/packages', {
      package: { trackingNumber: p3, receiver: { contactId: m.receiverId } },
      lastActivity: { status: 'RECEIVED', location: { inboundSiteId: shelf2 } },
    })
    const audit = await a.ok('POST', `/api/v1/shelves/${m.shelfId}/audits`, { scans: [p1.tn, p3, p1.tn, 'GHOST1'] })
    expect(audit.found.map((x: { packageId: string }) => x.packageId)).toEqual([p1.packageId])
    expect(audit.missing.map((x: { packageId: string }) => x.packageId)).toEqual([p2.packageId])
    expect(audit.misplaced).toEqual([
      {
        packageId: p3id,
        trackingNumber: p3,
        recipient: 'Ada Lovelace',
        recordedAt: expect.stringContaining('Shelf 2'),
      },
    ])
    expect(audit.unknown).toEqual(['GHOST1'])
    expect(audit.shelf.inboundSiteId).toBe(m.shelfId)
    const rec = await a.ok('GET', `/api/v1/packages/${p3id}?type=DETAILED`)
    expect(rec.currentLocation.inboundSiteId).toBe(shelf2)
  })

  it('prints labels as a PDF page per shelf in each stock size, and as ZPL', async () => {
    const { a, m, shelf2, s1, s2 } = await setUp()
    for (const [size, w, h] of [
      ['4x6', 288, 432],
      ['2.25x1.25', 162, 90],
    ] as const) {
      const res = await a.call(
        'GET',
        `/api/v1/shelves/labels?size=${size}&inboundSiteId=${m.shelfId}&inboundSiteId=${shelf2}`,
      )
      expect(res.statusCode).toBe(200)
      expect(res.headers['content-type']).toBe('application/pdf')
      const pdf = await PDFDocument.load(res.rawPayload)
      expect(pdf.getPageCount()).toBe(2)
      for (const page of pdf.getPages()) expect(page.getSize()).toEqual({ width: w, height: h })
    }
    const zpl = await a.call('GET', `/api/v1/shelves/labels?format=zpl&size=2.25x1.25&inboundSiteId=${m.shelfId}`)
    expect(zpl.headers['content-type']).toMatch(/^text\/plain/)
    expect(zpl.body).toMatch(/^\^XA/)
    expect(zpl.body).toContain(`^BCN,90,Y,N,N^FD${s1.code}^FS`)
    expect(zpl.body).toContain('^PW457')
    expect(zpl.body).not.toContain(s2.code)
    const bad = await a.call('GET', `/api/v1/shelves/labels?inboundSiteId=${m.siteId}`)
    expect(bad.statusCode).toBe(400)
    expect(bad.json().errors[0].additionalParameters).toBe('inboundSiteId[0]')
  })

  it('draws a Code 128 a scanner reads back as the code', async () => {
    const found = await readBarcodesFromImage(await barcodePng('SHELF-K7M2QD'))
    expect(found.map((f) => [f.symbology, f.text])).toEqual([['Code128', 'SHELF-K7M2QD']])
  })
})
