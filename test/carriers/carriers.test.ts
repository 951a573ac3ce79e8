import type { LightMyRequestResponse } from 'fastify'
import { describe, expect, it } from 'vitest'
import { itRefusesBadTokens } from '../support/auth-matrix.js'
import type { TestClient } from '../support/build-test-app.js'
import { useTestApp } from '../support/use-test-app.js'

const t = useTestApp()

type Method = 'GET' | 'POST' | 'PUT'
const call = (c: TestClient, method: Method, url: string, payload?: unknown) =>
  t.inject({ method, url, payload: payload as never, headers: c.auth })
const fields = (res: LightMyRequestResponse) =>
  res
    .json()
    .errors.map((e: { additionalParameters?: string }) => e.additionalParameters)
    .sort()
const idsOf = (res: LightMyRequestResponse) => res.json().carriers.map((x: { carrierId: string }) => x.carrierId)

/** By name: Amazon Logistics, Canada Post, Canpar, DHL eCommerce, DHL Express, DPD, FedEx, GOFO Express, Landmark Global, LaserShip, … */
const BUILT_IN = [
  'AMAZON',
  'CANADA_POST',
  'CANPAR',
  'DHL_ECOMMERCE',
  'DHL_EXPRESS',
  'DPD',
  'FEDEX',
  'GOFO',
  'LANDMARK',
  'LASERSHIP',
  'MAILROOM',
  'OLD_DOMINION',
  'ONTRAC',
  'PUROLATOR',
  'ROYAL_MAIL',
  'SPEE_DEE',
  'UPS',
  'USPS',
  'YODEL',
  'YUNEXPRESS',
]

async function location(c: TestClient, name: string, carriers?: string[]): Promise<string> {
  const res = await call(c, 'POST', '/api/v1/locations', {
    name,
    address: { line1: '1 Main St', city: 'Springfield', state: 'IL', postalCode: '62701', country: 'US' },
    timezone: 'America/Chicago',
  })
  expect(res.statusCode, res.body).toBe(201)
  const id = res.json().locationId
  if (carriers) expect((await call(c, 'PUT', `/api/v1/locations/${id}/carriers`, carriers)).statusCode).toBe(200)
  return id
}

async function courier(c: TestClient, body: Record<string, unknown>) {
  const res = await call(c, 'POST', '/api/v1/carriers/catalog', body)
  expect(res.statusCode, res.body).toBe(201)
  return res.json()
}

describe('carrier catalogue', () => {
  itRefusesBadTokens(
    () => t,
    [
      { method: 'GET', url: '/api/v1/carriers/catalog' },
      { method: 'POST', url: '/api/v1/carriers/catalog', payload: { name: 'x' } },
      { method: 'POST', url: '/api/v1/carriers', payload: ['loc_x'] },
    ],
  )

  it('lists the built-in carriers, sorted by name, with their services', async () => {
    const c = await t.newClient()
    const res = await call(c, 'GET', '/api/v1/carriers/catalog?limit=200')
    expect(res.statusCode).toBe(200)
    const body = res.json()
    expect(body.totalCount).toBe(BUILT_IN.length)
    expect(idsOf(res)).toEqual(BUILT_IN)
    expect(body.carriers.find((x: { carrierId: string }) => x.carrierId === 'UPS')).toEqual({
      carrierId: 'UPS',
      name: 'UPS',
      scac: 'UPSN',
      barcodeAware: true,
      builtIn: true,
      services: [
        'Next Day Air',
        'Next Day Air Early',
        'Next Day Air Saver',
        '2nd Day Air',
        '2nd Day Air A.M.',
        '3 Day Select',
        'Ground',
        'Standard',
        'Worldwide Express',
        'Worldwide Expedited',
        'Worldwide Saver',
        'SurePost',
        'Mail Innovations',
      ],
    })
    expect(body.carriers.find((x: { carrierId: string }) => x.carrierId === 'ROYAL_MAIL')).not.toHaveProperty('scac')
    const page = await call(c, 'GET', '/api/v1/carriers/catalog?skip=2&limit=3')
    expect(page.json().totalCount).toBe(BUILT_IN.length)
    expect(idsOf(page)).toEqual(BUILT_IN.slice(2, 5))
    expect((await call(c, 'GET', '/api/v1/carriers/catalog')).json().carriers).toHaveLength(BUILT_IN.length)
    for (const qs of ['?limit=201', '?skip=-1', '?barcodeAware=maybe'])
      expect((await call(c, 'GET', `/api/v1/carriers/catalog${qs}`)).statusCode, qs).toBe(400)
  })

  it('adds subscription-local couriers that only their subscription sees', async () => {
    const c = await t.newClient()
    const other = await t.newClient()
    const bike = await courier(c, { name: ' Bike Couriers ', services: ['Same Hour', ' Same Day '] })
    expect(bike.carrierId).toMatch(/^car_[0-9a-z]+$/)
    expect(bike).toEqual({
      carrierId: bike.carrierId,
      name: 'Bike Couriers',
      barcodeAware: false,
      services: ['Same Hour', 'Same Day'],
      builtIn: false,
    })
    const van = await courier(c, { name: 'Van Line', barcodeAware: true })
    expect(van).toEqual({
      carrierId: van.carrierId,
      name: 'Van Line',
      barcodeAware: true,
      services: [],
      builtIn: false,
    })

    const mine = await call(c, 'GET', '/api/v1/carriers/catalog?limit=200')
    expect(mine.json().totalCount).toBe(BUILT_IN.length + 2)
    expect(idsOf(mine)).toEqual([
      'AMAZON',
      bike.carrierId,
      ...BUILT_IN.slice(1, -2),
      van.carrierId,
      'YODEL',
      'YUNEXPRESS',
    ])
    expect(idsOf(await call(c, 'GET', '/api/v1/carriers/catalog?barcodeAware=false&limit=200'))).toEqual([
      bike.carrierId,
    ])
    expect((await call(other, 'GET', '/api/v1/carriers/catalog?limit=200')).json().totalCount).toBe(BUILT_IN.length)

    const visible = await t.ctx.companions.carriers.getVisible(c.subId, ['UPS', bike.carrierId, 'NOPE'])
    expect([...visible.keys()].sort()).toEqual([bike.carrierId, 'UPS'].sort())
    expect(visible.get(bike.carrierId)).toEqual({
      carrierId: bike.carrierId,
      name: 'Bike Couriers',
      barcodeAware: false,
      services: ['Same Hour', 'Same Day'],
    })
    expect((await t.ctx.companions.carriers.getVisible(other.subId, [bike.carrierId, 'UPS'])).has(bike.carrierId)).toBe(
      false,
    )
  })

  it('keeps courier names unique among built-ins and own ones, ignoring case (409)', async () => {
    const c = await t.newClient()
    for (const name of ['ups', 'Dhl Express', 'FEDEX']) {
      const res = await call(c, 'POST', '/api/v1/carriers/catalog', { name })
      expect(res.statusCode, name).toBe(409)
      expect(res.json().errors).toEqual([
        {
          errorCode: 'already_exists',
          errorDescription: 'A carrier with this name already exists in the catalogue.',
          additionalCode: 'CAR-4090',
          additionalInfo: '',
          additionalParameters: 'name',
          correlationID: expect.any(String),
        },
      ])
    }
    await courier(c, { name: 'Local Runner' })
    expect((await call(c, 'POST', '/api/v1/carriers/catalog', { name: 'LOCAL RUNNER' })).statusCode).toBe(409)
    await courier(await t.newClient(), { name: 'Local Runner' })
    expect((await call(c, 'GET', '/api/v1/carriers/catalog?limit=200')).json().totalCount).toBe(BUILT_IN.length + 1)
  })

  it('refuses bad courier input with a 400 naming each field', async () => {
    const c = await t.newClient()
    const cases: Array<[unknown, string[]]> = [
      [{}, ['name']],
      [{ name: '  ' }, ['name']],
      [{ name: 'x'.repeat(101) }, ['name']],
      [{ name: { n: 1 } }, ['name']],
      [{ name: 'x', barcodeAware: 'perhaps' }, ['barcodeAware']],
      [{ name: 'x', services: { a: 1 } }, ['services']],
      [{ name: 'x', services: ['ok', ''] }, ['services[1]']],
      [{ name: 'x', services: ['Express', 'express'] }, ['services[1]']],
      [{ name: 'x', services: Array.from({ length: 51 }, (_, i) => `s${i}`) }, ['services']],
    ]
    for (const [body, expected] of cases) {
      const res = await call(c, 'POST', '/api/v1/carriers/catalog', body)
      expect(res.statusCode, JSON.stringify(body)).toBe(400)
      expect(fields(res), JSON.stringify(body)).toEqual(expected)
    }
    expect((await call(c, 'GET', '/api/v1/carriers/catalog?limit=200')).json().totalCount).toBe(BUILT_IN.length)
  })
})

describe('POST /api/v1/carriers: carriers at locations', () => {
  it("returns the union of the locations' carriers, sorted by name, with exactly the contract fields (201)", async () => {
    const c = await t.newClient()
    const bike = (await courier(c, { name: 'Bike Couriers', services: ['Same Hour'] })).carrierId
    const a = await location(c, 'A', ['UPS', 'USPS'])
    const b = await location(c, 'B', ['FEDEX', bike, 'UPS'])
    const res = await call(c, 'POST', '/api/v1/carriers', [a, b])
    expect(res.statusCode, res.body).toBe(201)
    expect(res.json()).toEqual({
      totalCount: 4,
      carriers: [
        { carrierId: bike, name: 'Bike Couriers', barcodeAware: false, services: ['Same Hour'] },
        {
          carrierId: 'FEDEX',
          name: 'FedEx',
          barcodeAware: true,
          services: expect.arrayContaining(['Ground', 'Priority Overnight']),
        },
        { carrierId: 'UPS', name: 'UPS', barcodeAware: true, services: expect.arrayContaining(['Ground']) },
        { carrierId: 'USPS', name: 'USPS', barcodeAware: true, services: expect.arrayContaining(['Priority Mail']) },
      ],
    })
    for (const x of res.json().carriers)
      expect(Object.keys(x).sort()).toEqual(['barcodeAware', 'carrierId', 'name', 'services'])
    // Comma-separated ids in one element, spaces and empty entries ignored, repeats harmless.
    expect(idsOf(await call(c, 'POST', '/api/v1/carriers', [` ${a} , ${b},,`, a, '']))).toEqual([
      bike,
      'FEDEX',
      'UPS',
      'USPS',
    ])
    expect(idsOf(await call(c, 'POST', '/api/v1/carriers', [a]))).toEqual(['UPS', 'USPS'])
    expect(idsOf(await call(c, 'POST', '/api/v1/carriers?barcodeAware=false', [a, b]))).toEqual([bike])
    expect(idsOf(await call(c, 'POST', '/api/v1/carriers?barcodeAware=true', [a, b]))).toEqual(['FEDEX', 'UPS', 'USPS'])
  })

  it('offers the whole catalogue (built-in and own) at a location with no carriers configured', async () => {
    const c = await t.newClient()
    const own = (await courier(c, { name: 'Zeppelin Post', barcodeAware: true })).carrierId
    const bare = await location(c, 'Bare')
    const narrow = await location(c, 'Narrow', ['UPS'])
    const all = await call(c, 'POST', '/api/v1/carriers?size=200', [bare])
    expect(all.json().totalCount).toBe(BUILT_IN.length + 1)
    expect(idsOf(all)).toEqual([...BUILT_IN, own])
    expect(idsOf(await call(c, 'POST', '/api/v1/carriers?size=200', [`${narrow},${bare}`]))).toEqual([...BUILT_IN, own])
  })

  it('pages with page (from 1) and size, counting every match', async () => {
    const c = await t.newClient()
    const bare = await location(c, 'Paged')
    const first = await call(c, 'POST', '/api/v1/carriers', [bare])
    expect(first.json().totalCount).toBe(BUILT_IN.length)
    expect(idsOf(first)).toEqual(BUILT_IN)
    expect(idsOf(await call(c, 'POST', '/api/v1/carriers?size=5&page=2', [bare]))).toEqual(BUILT_IN.slice(5, 10))
    expect(idsOf(await call(c, 'POST', '/api/v1/carriers?size=5&page=4', [bare]))).toEqual(BUILT_IN.slice(15))
    expect((await call(c, 'POST', '/api/v1/carriers?size=5&page=5', [bare])).json()).toEqual({
      carriers: [],
      totalCount: BUILT_IN.length,
    })
    for (const [qs, field] of [
      ['?size=201', 'size'],
      ['?size=0', 'size'],
      ['?page=0', 'page'],
      ['?page=x', 'page'],
      ['?barcodeAware=yes', 'barcodeAware'],
    ] as const) {
      const res = await call(c, 'POST', `/api/v1/carriers${qs}`, [bare])
      expect(res.statusCode, qs).toBe(400)
      expect(fields(res), qs).toEqual([field])
    }
  })

  it('names each element holding an unknown, deleted or foreign location', async () => {
    const c = await t.newClient()
    const other = await t.newClient()
    const mine = await location(c, 'Mine', ['UPS'])
    const gone = await location(c, 'Gone')
    expect((await call(c, 'DELETE' as Method, `/api/v1/locations/${gone}`)).statusCode).toBe(200)
    const theirs = await location(other, 'Theirs', ['FEDEX'])
    const res = await call(c, 'POST', '/api/v1/carriers', [mine, `${mine},loc_missing`, theirs, gone])
    expect(res.statusCode).toBe(400)
    expect(fields(res)).toEqual(['[1]', '[2]', '[3]'])
    expect(res.json().errors[0]).toMatchObject({
      errorCode: 'validation_error',
      errorDescription: 'No location loc_missing.',
    })
    const cases: Array<[unknown, string[]]> = [
      [[], ['body']],
      [[' , '], ['[0]']],
      [{ locations: [mine] }, ['body']],
      [[{ id: mine }], ['[0]']],
      [['x'.repeat(2001)], ['[0]']],
      [Array.from({ length: 201 }, () => mine), ['body']],
    ]
    for (const [body, expected] of cases) {
      const r = await call(c, 'POST', '/api/v1/carriers', body)
      expect(r.statusCode, JSON.stringify(body).slice(0, 60)).toBe(400)
      expect(fields(r), JSON.stringify(body).slice(0, 60)).toEqual(expected)
    }
  })
})
