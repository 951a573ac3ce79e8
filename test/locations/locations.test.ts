import type { LightMyRequestResponse } from 'fastify'
import { describe, expect, it } from 'vitest'
import { itRefusesBadTokens } from '../support/auth-matrix.js'
import type { TestClient } from '../support/build-test-app.js'
import { useTestApp } from '../support/use-test-app.js'

const t = useTestApp()

type Method = 'GET' | 'POST' | 'PUT' | 'DELETE'
const call = (c: TestClient, method: Method, url: string, payload?: unknown) =>
  t.inject({ method, url, payload: payload as never, headers: c.auth })
const fields = (res: LightMyRequestResponse) =>
  res
    .json()
    .errors.map((e: { additionalParameters?: string }) => e.additionalParameters)
    .sort()

const ADDRESS = { line1: '350 Fifth Avenue', city: 'New York', state: 'NY', postalCode: '10118', country: 'US' }
const body = (name: string, extra: Record<string, unknown> = {}) => ({
  name,
  address: ADDRESS,
  timezone: 'America/New_York',
  ...extra,
})

async function create(c: TestClient, name: string, extra: Record<string, unknown> = {}) {
  const res = await call(c, 'POST', '/api/v1/locations', body(name, extra))
  expect(res.statusCode, res.body).toBe(201)
  return res.json()
}

async function insertSite(subId: string, locationId: string, deleted = false): Promise<string> {
  const siteId = `site_${Math.random().toString(36).slice(2, 10)}`
  const at = t.clock.now()
  await t.ctx.db
    .insertInto('inbound_sites')
    .values({
      site_id: siteId,
      sub_id: subId,
      name: siteId,
      type: 'site',
      parent_id: null,
      location_id: locationId,
      ancestor_ids: [],
      path_names: [siteId],
      status: 'active',
      is_primary: false,
      created_at: at,
      updated_at: at,
      deleted_at: deleted ? at : null,
    })
    .execute()
  return siteId
}

describe('locations', () => {
  itRefusesBadTokens(
    () => t,
    [
      { method: 'POST', url: '/api/v1/locations', payload: body('x') },
      { method: 'GET', url: '/api/v1/locations' },
      { method: 'GET', url: '/api/v1/locations/loc_x' },
      { method: 'PUT', url: '/api/v1/locations/loc_x', payload: { name: 'y' } },
      { method: 'PUT', url: '/api/v1/locations/loc_x/carriers', payload: ['UPS'] },
      { method: 'DELETE', url: '/api/v1/locations/loc_x' },
    ],
  )

  it('creates, reads and lists locations with exactly the record fields', async () => {
    const c = await t.newClient()
    const res = await call(c, 'POST', '/api/v1/locations', {
      name: ' Empire ',
      timezone: 'america/new_york',
      address: {
        line1: ' 350 Fifth Avenue ',
        line2: 'Floor 2',
        city: 'New York',
        state: 'NY',
        postalCode: '10118',
        country: 'us',
      },
    })
    expect(res.statusCode, res.body).toBe(201)
    const loc = res.json()
    expect(loc.locationId).toMatch(/^loc_[0-9a-z]+$/)
    expect(loc).toEqual({
      locationId: loc.locationId,
      name: 'Empire',
      timezone: 'America/New_York',
      carriers: [],
      address: {
        line1: '350 Fifth Avenue',
        line2: 'Floor 2',
        city: 'New York',
        state: 'NY',
        postalCode: '10118',
        country: 'US',
      },
    })
    const london = await create(c, 'London', {
      address: { line1: '1 Canada Square', line2: '', city: 'London', state: '', postalCode: 'e14 5ab', country: 'GB' },
      timezone: 'Europe/London',
    })
    expect(london.address).toEqual({
      line1: '1 Canada Square',
      city: 'London',
      state: '',
      postalCode: 'E14 5AB',
      country: 'GB',
    })
    expect((await call(c, 'GET', `/api/v1/locations/${loc.locationId}`)).json()).toEqual(loc)
    expect((await call(c, 'GET', '/api/v1/locations')).json()).toEqual({ locations: [loc, london], totalCount: 2 })
    expect((await call(c, 'GET', '/api/v1/locations?skip=1&limit=1')).json()).toEqual({
      locations: [london],
      totalCount: 2,
    })

    const byId = await t.ctx.companions.locations.getByIds(c.subId, [loc.locationId, 'loc_missing'])
    expect([...byId.values()]).toEqual([loc])
    expect(await t.ctx.companions.locations.exists(c.subId, london.locationId)).toBe(true)
    expect(await t.ctx.companions.locations.exists(c.subId, 'loc_missing')).toBe(false)
  })

  it('refuses bad input with a 400 naming each field, and writes nothing', async () => {
    const c = await t.newClient()
    const cases: Array<[unknown, string[]]> = [
      [{}, ['address', 'name', 'timezone']],
      [
        { ...body('x'), address: {} },
        ['address.city', 'address.country', 'address.line1', 'address.postalCode', 'address.state'],
      ],
      [body(''), ['name']],
      [body('x'.repeat(101)), ['name']],
      [{ ...body('x'), name: { en: 'x' } }, ['name']],
      [body('x', { timezone: 'Mars/Olympus' }), ['timezone']],
      [body('x', { timezone: '+05:30' }), ['timezone']],
      [body('x', { timezone: '' }), ['timezone']],
      [body('x', { timezone: 'x'.repeat(65) }), ['timezone']],
      [body('x', { address: { ...ADDRESS, country: 'XX' } }), ['address.country']],
      [body('x', { address: { ...ADDRESS, country: 'USA' } }), ['address.country']],
      [body('x', { address: { ...ADDRESS, country: 'U1' } }), ['address.country']],
      [body('x', { address: { ...ADDRESS, postalCode: '10118!' } }), ['address.postalCode']],
      [body('x', { address: { ...ADDRESS, postalCode: 'x'.repeat(21) } }), ['address.postalCode']],
      [body('x', { address: { ...ADDRESS, line1: '  ' } }), ['address.line1']],
      [body('x', { address: { ...ADDRESS, line2: 'x'.repeat(201) } }), ['address.line2']],
      [
        body('x', { address: { ...ADDRESS, country: 'ZZ' }, timezone: 'Nowhere/Land' }),
        ['address.country', 'timezone'],
      ],
    ]
    for (const [b, expected] of cases) {
      const res = await call(c, 'POST', '/api/v1/locations', b)
      expect(res.statusCode, JSON.stringify(b)).toBe(400)
      expect(fields(res), JSON.stringify(b)).toEqual(expected)
      expect(res.json().errors.every((e: { errorCode: string }) => e.errorCode === 'validation_error')).toBe(true)
    }
    expect((await call(c, 'GET', '/api/v1/locations')).json().totalCount).toBe(0)
    for (const qs of ['?limit=201', '?limit=0', '?skip=-1', '?skip=x'])
      expect((await call(c, 'GET', `/api/v1/locations${qs}`)).statusCode, qs).toBe(400)
  })

  it('keeps names unique per subscription ignoring case (409)', async () => {
    const c = await t.newClient()
    await create(c, 'Main Office')
    const dup = await call(c, 'POST', '/api/v1/locations', body('MAIN OFFICE'))
    expect(dup.statusCode).toBe(409)
    expect(dup.json().errors).toEqual([
      {
        errorCode: 'already_exists',
        errorDescription: 'A location with this name already exists.',
        additionalCode: 'LOC-4090',
        additionalInfo: '',
        additionalParameters: 'name',
        correlationID: expect.any(String),
      },
    ])
    const other = await create(c, 'Annex')
    expect((await call(c, 'PUT', `/api/v1/locations/${other.locationId}`, { name: 'main office' })).statusCode).toBe(
      409,
    )
    await create(await t.newClient(), 'Main Office')
  })

  it('updates by merging: name, address as a whole, timezone', async () => {
    const c = await t.newClient()
    const loc = await create(c, 'Depot')
    const url = `/api/v1/locations/${loc.locationId}`
    const moved = await call(c, 'PUT', url, {
      address: { line1: '1 Rue de Rivoli', city: 'Paris', state: '', postalCode: '75001', country: 'fr' },
      timezone: 'Europe/Paris',
    })
    expect(moved.statusCode, moved.body).toBe(200)
    const expected = {
      ...loc,
      address: { line1: '1 Rue de Rivoli', city: 'Paris', state: '', postalCode: '75001', country: 'FR' },
      timezone: 'Europe/Paris',
    }
    expect(moved.json()).toEqual(expected)
    expect((await call(c, 'PUT', url, { name: 'Paris Depot' })).json()).toEqual({ ...expected, name: 'Paris Depot' })
    for (const [b, f] of [
      [{ timezone: 'Europe/Pariss' }, ['timezone']],
      [{ address: { ...ADDRESS, country: 'QQ' } }, ['address.country']],
      [{ name: ' ' }, ['name']],
      [{ address: { city: 'x' } }, ['address.country', 'address.line1', 'address.postalCode', 'address.state']],
    ] as const) {
      const res = await call(c, 'PUT', url, b)
      expect(res.statusCode, JSON.stringify(b)).toBe(400)
      expect(fields(res)).toEqual(f)
    }
    expect((await call(c, 'GET', url)).json()).toEqual({ ...expected, name: 'Paris Depot' })
  })

  it('sets the carriers of a location: built-in or own couriers only, naming each bad element', async () => {
    const c = await t.newClient()
    const other = await t.newClient()
    const loc = await create(c, 'Dock')
    const url = `/api/v1/locations/${loc.locationId}/carriers`
    const mine = (await call(c, 'POST', '/api/v1/carriers/catalog', { name: 'Bike Couriers' })).json().carrierId
    const theirs = (await call(other, 'POST', '/api/v1/carriers/catalog', { name: 'Their Van' })).json().carrierId
    const set = await call(c, 'PUT', url, ['UPS', mine, 'FEDEX', 'UPS'])
    expect(set.statusCode, set.body).toBe(200)
    expect(set.json()).toEqual({ ...loc, carriers: ['UPS', mine, 'FEDEX'] })
    expect((await call(c, 'GET', `/api/v1/locations/${loc.locationId}`)).json().carriers).toEqual([
      'UPS',
      mine,
      'FEDEX',
    ])

    const bad = await call(c, 'PUT', url, ['USPS', theirs, 'NOPE'])
    expect(bad.statusCode).toBe(400)
    expect(fields(bad)).toEqual(['[1]', '[2]'])
    for (const b of [
      { carriers: ['UPS'] },
      [42],
      ['bad id!'],
      [{ id: 'UPS' }],
      Array.from({ length: 201 }, () => 'UPS'),
    ])
      expect((await call(c, 'PUT', url, b)).statusCode, JSON.stringify(b)).toBe(400)
    expect((await call(c, 'GET', `/api/v1/locations/${loc.locationId}`)).json().carriers).toEqual([
      'UPS',
      mine,
      'FEDEX',
    ])
    expect((await call(c, 'PUT', url, [])).json().carriers).toEqual([])

    // Carriers named as Pitney Bowes clients name them are stored (and shown) as our ids, once each.
    const pb = await call(c, 'PUT', url, ['FedEx', 'dhl', 'UPS', 'fedex', 'usps'])
    expect(pb.statusCode, pb.body).toBe(200)
    expect(pb.json().carriers).toEqual(['FEDEX', 'DHL_EXPRESS', 'UPS', 'USPS'])
    expect((await call(c, 'GET', `/api/v1/locations/${loc.locationId}`)).json().carriers).toEqual([
      'FEDEX',
      'DHL_EXPRESS',
      'UPS',
      'USPS',
    ])
  })

  it("answers 404 for another subscription's location on every id route, and changes nothing", async () => {
    const owner = await t.newClient()
    const stranger = await t.newClient()
    const loc = await create(owner, 'Vault')
    const cases: Array<[Method, string, unknown]> = [
      ['GET', '', undefined],
      ['PUT', '', { name: 'Taken' }],
      ['PUT', '/carriers', ['UPS']],
      ['PUT', '/carriers', ['NOPE']],
      ['DELETE', '', undefined],
    ]
    for (const [method, suffix, payload] of cases) {
      const res = await call(stranger, method, `/api/v1/locations/${loc.locationId}${suffix}`, payload)
      expect(res.statusCode, `${method} ${suffix}`).toBe(404)
      expect(res.json().errors[0]).toMatchObject({ errorCode: 'not_found', additionalCode: 'LOC-4040' })
    }
    expect((await call(owner, 'GET', `/api/v1/locations/${loc.locationId}`)).json()).toEqual(loc)
    expect((await call(stranger, 'GET', '/api/v1/locations')).json()).toEqual({ locations: [], totalCount: 0 })
    expect((await t.ctx.companions.locations.getByIds(stranger.subId, [loc.locationId])).size).toBe(0)
    expect(await t.ctx.companions.locations.exists(stranger.subId, loc.locationId)).toBe(false)
    expect((await call(owner, 'GET', '/api/v1/locations/loc_doesnotexist')).statusCode).toBe(404)
    for (const [method, suffix, payload] of [
      ['GET', '', undefined],
      ['PUT', '', { name: 'x' }],
      ['PUT', '/carriers', []],
      ['DELETE', '', undefined],
    ] as const) {
      const res = await call(owner, method, `/api/v1/locations/${'x'.repeat(65)}${suffix}`, payload)
      expect(res.statusCode, `${method} ${suffix}`).toBe(400)
      expect(fields(res)).toEqual(['locationId'])
    }
  })

  it('refuses to delete a location with live inbound sites (409), then deletes softly', async () => {
    const c = await t.newClient()
    const loc = await create(c, 'Campus')
    const url = `/api/v1/locations/${loc.locationId}`
    const site = await insertSite(c.subId, loc.locationId)
    await insertSite(c.subId, loc.locationId, true)
    const refused = await call(c, 'DELETE', url)
    expect(refused.statusCode).toBe(409)
    expect(refused.json().errors[0]).toMatchObject({
      errorCode: 'validation_error',
      additionalCode: 'LOC-4091',
      errorDescription: expect.stringContaining('1 inbound site'),
    })
    expect((await call(c, 'GET', url)).statusCode).toBe(200)

    await t.ctx.db.updateTable('inbound_sites').set({ deleted_at: t.clock.now() }).where('site_id', '=', site).execute()
    const del = await call(c, 'DELETE', url)
    expect(del.statusCode).toBe(200)
    expect(del.json()).toEqual({})
    for (const [method, suffix, payload] of [
      ['GET', '', undefined],
      ['PUT', '', { name: 'x' }],
      ['PUT', '/carriers', []],
      ['DELETE', '', undefined],
    ] as const) {
      expect((await call(c, method, `${url}${suffix}`, payload)).statusCode, `${method} ${suffix}`).toBe(404)
    }
    expect((await call(c, 'GET', '/api/v1/locations')).json()).toEqual({ locations: [], totalCount: 0 })
    expect(await t.ctx.companions.locations.exists(c.subId, loc.locationId)).toBe(false)
    expect((await t.ctx.companions.locations.getByIds(c.subId, [loc.locationId])).size).toBe(0)
    // History (a package's locationZip at a deleted site) can still read it.
    expect(
      (await t.ctx.companions.locations.getByIds(c.subId, [loc.locationId], { includeDeleted: true })).get(
        loc.locationId,
      ),
    ).toEqual(loc)
    // The name is free again.
    expect((await create(c, 'Campus')).locationId).not.toBe(loc.locationId)
  })
})
