import { beforeAll, describe, expect, it } from 'vitest'
import { itRefusesBadTokens } from '../support/auth-matrix.js'
import { useTestApp, useClient } from '../support/use-test-app.js'
import { api } from '../support/factories.js'

const t = useTestApp()
const me = useClient(t)
let a: ReturnType<typeof api>
beforeAll(async () => {
  a = api(t, me)
})

async function site(id: string) {
  const list = await a.ok('GET', `/api/v1/inboundsites?limit=200`)
  return list.inboundSites.find((s: { inboundSiteId: string }) => s.inboundSiteId === id)
}

describe('inbound sites', () => {
  itRefusesBadTokens(
    () => t,
    [
      { method: 'POST', url: '/api/v1/inboundsites', payload: { type: 'site', name: 'x', locationId: 'loc_x' } },
      { method: 'GET', url: '/api/v1/inboundsites' },
      { method: 'PUT', url: '/api/v1/inboundsites/site_x', payload: {} },
      { method: 'DELETE', url: '/api/v1/inboundsites/site_x' },
      { method: 'POST', url: '/api/v1/location/inboundsites', payload: ['loc_x'] },
    ],
  )

  it('keeps parent, ancestorlist, locationHierarchy and topTier right on create, rename and move', async () => {
    const locationId = await a.location('Tower')
    const hq = await a.site({ type: 'site', name: 'HQ', locationId })
    const bA = await a.site({ type: 'building', name: 'Building A', parent: hq })
    const bB = await a.site({ type: 'building', name: 'Building B', parent: hq })
    const floor = await a.site({ type: 'floor', name: 'Floor 1', parent: bA })
    const shelf = await a.site({ type: 'shelf', name: 'Shelf 9', parent: floor })

    expect(await site(hq)).toMatchObject({
      name: 'HQ',
      type: 'site',
      parent: null,
      ancestorlist: [],
      locationHierarchy: 'HQ',
      topTier: { inboundSiteId: 'EMPTY_SITE', name: 'EMPTY_SITE' },
      locationId,
      status: 'active',
      primary: false,
    })
    expect(await site(shelf)).toMatchObject({
      parent: floor,
      ancestorlist: [hq, bA, floor],
      locationHierarchy: 'HQ| Building A| Floor 1| Shelf 9',
      topTier: { inboundSiteId: hq, name: 'HQ' },
      locationId,
    })

    await a.ok('PUT', `/api/v1/inboundsites/${bA}`, { name: 'North Wing' })
    expect((await site(shelf)).locationHierarchy).toBe('HQ| North Wing| Floor 1| Shelf 9')

    await a.ok('PUT', `/api/v1/inboundsites/${floor}`, { parent: bB })
    expect(await site(floor)).toMatchObject({
      parent: bB,
      ancestorlist: [hq, bB],
      locationHierarchy: 'HQ| Building B| Floor 1',
    })
    expect(await site(shelf)).toMatchObject({
      parent: floor,
      ancestorlist: [hq, bB, floor],
      locationHierarchy: 'HQ| Building B| Floor 1| Shelf 9',
    })

    await a.ok('PUT', `/api/v1/inboundsites/${hq}`, { name: 'Headquarters' })
    expect(await site(shelf)).toMatchObject({
      locationHierarchy: 'Headquarters| Building B| Floor 1| Shelf 9',
      topTier: { inboundSiteId: hq, name: 'Headquarters' },
    })
  })

  it('refuses cycles and moving a top-tier site', async () => {
    const locationId = await a.location()
    const hq = await a.site({ type: 'site', name: 'Cyc', locationId })
    const b = await a.site({ type: 'building', name: 'B', parent: hq })
    const s = await a.site({ type: 'shelf', name: 'S', parent: b })
    for (const [id, parent] of [
      [b, s],
      [b, b],
    ] as const) {
      const res = await a.call('PUT', `/api/v1/inboundsites/${id}`, { parent })
      expect(res.statusCode).toBe(400)
      expect(res.json().errors[0].additionalParameters).toBe('parent')
    }
    const other = await a.site({ type: 'site', name: 'Other', locationId })
    expect((await a.call('PUT', `/api/v1/inboundsites/${hq}`, { parent: other })).statusCode).toBe(400)
    expect(await site(s)).toMatchObject({ ancestorlist: [hq, b] })
  })

  it('keeps one primary site per subscription', async () => {
    const locationId = await a.location()
    const one = await a.site({ type: 'site', name: 'P1', locationId, primary: true })
    const two = await a.site({ type: 'site', name: 'P2', locationId, primary: true })
    expect((await site(one)).primary).toBe(false)
    expect((await site(two)).primary).toBe(true)
    await a.ok('PUT', `/api/v1/inboundsites/${one}`, { primary: true })
    const primaries = await a.ok('GET', '/api/v1/inboundsites?fetchPrimarySite=true')
    expect(primaries.inboundSites.map((s: { inboundSiteId: string }) => s.inboundSiteId)).toEqual([one])
    expect(primaries.totalCount).toBe(1)
  })

  it('lists with skip, limit, sort, query, searchBy, status and timestamp', async () => {
    const c = await t.newClient()
    const b = api(t, c)
    const locationId = await b.location()
    const root = await b.site({ type: 'site', name: 'Root', locationId })
    const x = await b.site({ type: 'building', name: 'Xylophone Hall', parent: root })
    const y = await b.site({ type: 'building', name: 'Yard', parent: root, status: 'inactive' })
    const z = await b.site({ type: 'room', name: 'Zulu Room', parent: x })
    const ids = (body: { inboundSites: Array<{ inboundSiteId: string }> }) =>
      body.inboundSites.map((s) => s.inboundSiteId)

    expect(ids(await b.ok('GET', `/api/v1/inboundsites?searchBy=parent:${root}&sort=name,ASC`))).toEqual([x, y])
    expect(ids(await b.ok('GET', `/api/v1/inboundsites?searchBy=ancestorlist:${root}&sort=name,DESC`))).toEqual([
      z,
      y,
      x,
    ])
    expect(ids(await b.ok('GET', '/api/v1/inboundsites?query=ROOM'))).toEqual([z])
    expect(ids(await b.ok('GET', '/api/v1/inboundsites?status=inactive'))).toEqual([y])
    const page = await b.ok('GET', '/api/v1/inboundsites?sort=name,ASC&skip=1&limit=2')
    expect(page.totalCount).toBe(4)
    expect(ids(page)).toEqual([x, y])
    const future = new Date(t.clock.now().getTime() + 60_000).toISOString()
    expect((await b.ok('GET', `/api/v1/inboundsites?timestamp=before:${future}`)).totalCount).toBe(4)
    expect((await b.ok('GET', `/api/v1/inboundsites?timestamp=${future}`)).totalCount).toBe(0)
    expect((await b.ok('GET', `/api/v1/inboundsites?timestamp=after:${future}`)).totalCount).toBe(0)

    for (const [q, field] of [
      ['sort=color,ASC', 'sort'],
      ['limit=500', 'limit'],
      ['searchBy=child:x', 'searchBy'],
      ['timestamp=yesterday', 'timestamp'],
      ['status=gone', 'status'],
      ['skip=-1', 'skip'],
      ['bogus=1', 'bogus'],
    ] as const) {
      const res = await b.call('GET', `/api/v1/inboundsites?${q}`)
      expect(res.statusCode, q).toBe(400)
      expect(
        res.json().errors.map((e: { additionalParameters: string }) => e.additionalParameters),
        q,
      ).toContain(field)
    }
  })

  it('refuses bad bodies, naming the field', async () => {
    const locationId = await a.location()
    const cases: Array<[unknown, string]> = [
      [{ type: 'site', locationId }, 'name'],
      [{ type: 'castle', name: 'x', parent: 'site_x' }, 'type'],
      [{ type: 'site', name: 'x' }, 'locationId'],
      [{ type: 'site', name: 'x'.repeat(101), locationId }, 'name'],
      [{ type: 'site', name: 'x', locationId: 'loc_missing' }, 'locationId'],
      [{ type: 'shelf', name: 'x', parent: 'site_missing' }, 'parent'],
    ]
    for (const [body, field] of cases) {
      const res = await a.call('POST', '/api/v1/inboundsites', body)
      expect(res.statusCode, JSON.stringify(body)).toBe(400)
      expect(JSON.stringify(res.json().errors), JSON.stringify(body)).toContain(field)
    }
    const dup = await a.site({ type: 'site', name: 'Dup', locationId })
    expect(dup).toBeTruthy()
    const again = await a.call('POST', '/api/v1/inboundsites', { type: 'site', name: 'dup', locationId })
    expect(again.statusCode).toBe(409)
    expect(again.json().errors[0].errorCode).toBe('already_exists')
  })

  it('keeps opening hours (an extension): optional, omitted when unset, bounded, changed or removed by update', async () => {
    const locationId = await a.location()
    const hq = await a.site({ type: 'site', name: 'Hours HQ', locationId, openingHours: ' Mon–Fri 8:00–18:00 ' })
    const shelf = await a.site({ type: 'shelf', name: 'Hours shelf', parent: hq })
    expect((await site(hq)).openingHours).toBe('Mon–Fri 8:00–18:00')
    expect(await site(shelf)).not.toHaveProperty('openingHours')
    const lobby = await a.site({ type: 'room', name: 'Lobby', parent: hq, openingHours: 'Sat 9–12' })
    expect((await site(lobby)).openingHours).toBe('Sat 9–12')
    for (const [body, field] of [
      [{ type: 'site', name: 'Long', locationId, openingHours: 'x'.repeat(201) }, 'openingHours'],
      [{ type: 'room', name: 'Blank', parent: hq, openingHours: '   ' }, 'openingHours'],
    ] as const) {
      const res = await a.call('POST', '/api/v1/inboundsites', body)
      expect(res.statusCode).toBe(400)
      expect(res.json().errors.map((e: { additionalParameters: string }) => e.additionalParameters)).toContain(field)
    }
    await a.ok('PUT', `/api/v1/inboundsites/${hq}`, { openingHours: 'Mon–Sat 7:00–19:00' }, 200)
    expect((await site(hq)).openingHours).toBe('Mon–Sat 7:00–19:00')
    // An update that does not name them keeps them; null removes them.
    await a.ok('PUT', `/api/v1/inboundsites/${hq}`, { name: 'Hours HQ 2' }, 200)
    expect((await site(hq)).openingHours).toBe('Mon–Sat 7:00–19:00')
    await a.ok('PUT', `/api/v1/inboundsites/${hq}`, { openingHours: null }, 200)
    expect(await site(hq)).not.toHaveProperty('openingHours')
  })

  it('keeps the hand-over proof rule (an extension): omitted when unset, set on create or update, null inherits again', async () => {
    const locationId = await a.location()
    const hq = await a.site({ type: 'site', name: 'Proof HQ', locationId, signatureRule: 'optional' })
    const shelf = await a.site({ type: 'shelf', name: 'Proof shelf', parent: hq, photoProofAllowed: true })
    expect(await site(hq)).toMatchObject({ signatureRule: 'optional' })
    expect(await site(hq)).not.toHaveProperty('photoProofAllowed')
    expect(await site(shelf)).toMatchObject({ photoProofAllowed: true })
    expect(await site(shelf)).not.toHaveProperty('signatureRule')
    for (const body of [
      { type: 'site', name: 'Bad rule', locationId, signatureRule: 'sometimes' },
      { type: 'room', name: 'Bad photo', parent: hq, photoProofAllowed: 'yes' },
    ]) {
      const res = await a.call('POST', '/api/v1/inboundsites', body)
      expect(res.statusCode).toBe(400)
      const named = res.json().errors.map((e: { additionalParameters: string }) => e.additionalParameters)
      expect(named.some((f: string) => f === 'signatureRule' || f === 'photoProofAllowed')).toBe(true)
    }
    const bad = await a.call('PUT', `/api/v1/inboundsites/${hq}`, { signatureRule: 'never' })
    expect(bad.statusCode).toBe(400)
    expect(await site(hq)).toMatchObject({ signatureRule: 'optional' })
    await a.ok('PUT', `/api/v1/inboundsites/${hq}`, { signatureRule: 'off', photoProofAllowed: false }, 200)
    expect(await site(hq)).toMatchObject({ signatureRule: 'off', photoProofAllowed: false })
    await a.ok('PUT', `/api/v1/inboundsites/${hq}`, { name: 'Proof HQ 2' }, 200)
    expect(await site(hq)).toMatchObject({ signatureRule: 'off', photoProofAllowed: false })
    await a.ok('PUT', `/api/v1/inboundsites/${hq}`, { signatureRule: null, photoProofAllowed: null }, 200)
    expect(await site(hq)).not.toHaveProperty('signatureRule')
    expect(await site(hq)).not.toHaveProperty('photoProofAllowed')
  })

  it('refuses to delete a site with active children, then deletes softly', async () => {
    const locationId = await a.location()
    const root = await a.site({ type: 'site', name: 'Del', locationId })
    const child = await a.site({ type: 'room', name: 'R', parent: root })
    const res = await a.call('DELETE', `/api/v1/inboundsites/${root}`)
    expect(res.statusCode).toBe(409)
    expect(res.json().errors[0]).toMatchObject({ errorCode: 'validation_error', additionalCode: 'SIT-4091' })
    await a.ok('PUT', `/api/v1/inboundsites/${child}`, { status: 'inactive' })
    await a.ok('DELETE', `/api/v1/inboundsites/${root}`)
    expect(await site(root)).toBeUndefined()
    expect(await site(child)).toBeUndefined()
    expect((await a.call('DELETE', `/api/v1/inboundsites/${root}`)).statusCode).toBe(404)
  })

  it('refuses to delete while an active site sits anywhere below, even under an inactive one', async () => {
    const locationId = await a.location()
    const root = await a.site({ type: 'site', name: 'Deep', locationId })
    const floor = await a.site({ type: 'floor', name: 'F1', parent: root, status: 'inactive' })
    const room = await a.site({ type: 'room', name: 'R1', parent: floor })
    const res = await a.call('DELETE', `/api/v1/inboundsites/${root}`)
    expect(res.statusCode).toBe(409)
    expect(res.json().errors[0].additionalCode).toBe('SIT-4091')
    expect(await site(room)).toMatchObject({ status: 'active' })
    await a.ok('PUT', `/api/v1/inboundsites/${room}`, { status: 'inactive' })
    await a.ok('DELETE', `/api/v1/inboundsites/${root}`)
    expect(await site(room)).toBeUndefined()
  })

  it('keeps exactly one primary among concurrent requests to be primary', async () => {
    const locationId = await a.location()
    const sites = await Promise.all([1, 2, 3, 4].map((i) => a.site({ type: 'site', name: `Race ${i}`, locationId })))
    const answers = await Promise.all(sites.map((id) => a.call('PUT', `/api/v1/inboundsites/${id}`, { primary: true })))
    expect(answers.map((r) => r.statusCode)).toEqual([200, 200, 200, 200])
    const primaries = (await a.ok('GET', '/api/v1/inboundsites?fetchPrimarySite=true')).inboundSites
    expect(primaries).toHaveLength(1)
  })

  it("refuses a rename or move onto a sibling's name with 409 naming the name", async () => {
    const locationId = await a.location()
    const root = await a.site({ type: 'site', name: 'Names', locationId })
    await a.site({ type: 'room', name: 'Mail', parent: root })
    const other = await a.site({ type: 'room', name: 'Parcels', parent: root })
    const res = await a.call('PUT', `/api/v1/inboundsites/${other}`, { name: 'mail' })
    expect(res.statusCode).toBe(409)
    expect(res.json().errors[0]).toMatchObject({ errorCode: 'already_exists', additionalParameters: 'name' })
  })

  it('lists the sites of locations', async () => {
    const l1 = await a.location()
    const l2 = await a.location()
    const s1 = await a.site({ type: 'site', name: 'L1 site', locationId: l1 })
    const c1 = await a.site({ type: 'floor', name: 'F', parent: s1 })
    const body = await a.ok('POST', '/api/v1/location/inboundsites', [l1, l2], 200)
    expect(
      body.locations.map((l: { locationId: string; inboundSites: Array<{ inboundSiteId: string }> }) => [
        l.locationId,
        l.inboundSites.map((s) => s.inboundSiteId),
      ]),
    ).toEqual([
      [l1, [s1, c1]],
      [l2, []],
    ])
    const bad = await a.call('POST', '/api/v1/location/inboundsites', [l1, 'loc_nope'])
    expect(bad.statusCode).toBe(400)
    expect(bad.json().errors[0].additionalParameters).toBe('[1]')
  })

  it("never shows or changes another subscription's sites", async () => {
    const locationId = await a.location()
    const mine = await a.site({ type: 'site', name: 'Mine', locationId })
    const other = api(t, await t.newClient())
    expect((await other.call('PUT', `/api/v1/inboundsites/${mine}`, { name: 'Stolen' })).statusCode).toBe(404)
    expect((await other.call('DELETE', `/api/v1/inboundsites/${mine}`)).statusCode).toBe(404)
    const asParent = await other.call('POST', '/api/v1/inboundsites', { type: 'room', name: 'x', parent: mine })
    expect(asParent.statusCode).toBe(400)
    expect((await other.ok('GET', '/api/v1/inboundsites')).totalCount).toBe(0)
    expect((await other.call('POST', '/api/v1/location/inboundsites', [locationId])).statusCode).toBe(400)
    expect((await site(mine)).name).toBe('Mine')
  })
})
