import { describe, expect, it } from 'vitest'
import { api, trackingNumber } from '../support/factories.js'
import { useTestApp } from '../support/use-test-app.js'

/**
 * Issue 18.3 (the admin's carriers): a subscription's own couriers are changed and deleted through
 * the API; built-in carriers and other subscriptions' couriers are not.
 */
describe("PUT and DELETE /api/v1/carriers/catalog/{carrierId}: the subscription's couriers", () => {
  const t = useTestApp()
  const catalog = async (a: ReturnType<typeof api>) =>
    (await a.ok('GET', '/api/v1/carriers/catalog?limit=200')).carriers as Array<{ carrierId: string; name: string }>

  it('renames a courier and replaces its services; packages show the new name', async () => {
    const a = api(t, await t.newClient())
    const bike = (await a.ok('POST', '/api/v1/carriers/catalog', { name: 'Bike Run', services: ['Same Hour'] }))
      .carrierId as string
    const { packageId } = await a.ok('POST', '/api/v1/packages', {
      package: { trackingNumber: trackingNumber('CUR'), carrier: { carrierId: bike } },
      lastActivity: { status: 'RECEIVED' },
    })
    const changed = await a.ok('PUT', `/api/v1/carriers/catalog/${bike}`, {
      name: '  Pedal Post ',
      barcodeAware: true,
      services: ['Same Hour', 'Next Morning'],
    })
    expect(changed).toEqual({
      carrierId: bike,
      name: 'Pedal Post',
      barcodeAware: true,
      services: ['Same Hour', 'Next Morning'],
      builtIn: false,
    })
    expect((await catalog(a)).find((c) => c.carrierId === bike)).toEqual(changed)
    expect((await a.ok('GET', `/api/v1/packages/${packageId}?type=DETAILED`)).carrier).toMatchObject({
      carrierId: bike,
      name: 'Pedal Post',
    })
    // Keeping its own name (another case) is no clash; taking a built-in's or another courier's is.
    expect((await a.call('PUT', `/api/v1/carriers/catalog/${bike}`, { name: 'PEDAL POST' })).statusCode).toBe(200)
    await a.ok('POST', '/api/v1/carriers/catalog', { name: 'Van Run' })
    for (const name of ['ups', 'van run']) {
      const clash = await a.call('PUT', `/api/v1/carriers/catalog/${bike}`, { name })
      expect(clash.statusCode, name).toBe(409)
      expect(clash.json().errors[0]).toMatchObject({ additionalCode: 'CAR-4090', additionalParameters: 'name' })
    }
    // A service listed twice is named.
    const twice = await a.call('PUT', `/api/v1/carriers/catalog/${bike}`, { name: 'Pedal Post', services: ['A', 'a'] })
    expect(twice.statusCode).toBe(400)
    expect(twice.json().errors[0]).toMatchObject({ additionalParameters: 'services[1]' })
  })

  it("refuses to change or delete a built-in carrier (409), and does not find another subscription's courier (404)", async () => {
    const a = api(t, await t.newClient())
    const b = api(t, await t.newClient())
    const theirs = (await b.ok('POST', '/api/v1/carriers/catalog', { name: 'Their Courier' })).carrierId as string
    for (const res of [
      await a.call('PUT', '/api/v1/carriers/catalog/UPS', { name: 'Mine Now' }),
      await a.call('DELETE', '/api/v1/carriers/catalog/UPS'),
    ]) {
      expect(res.statusCode).toBe(409)
      expect(res.json().errors[0]).toMatchObject({ additionalCode: 'CAR-4091', additionalParameters: 'carrierId' })
    }
    for (const res of [
      await a.call('PUT', `/api/v1/carriers/catalog/${theirs}`, { name: 'Mine Now' }),
      await a.call('DELETE', `/api/v1/carriers/catalog/${theirs}`),
      await a.call('DELETE', '/api/v1/carriers/catalog/car_nothing'),
    ]) {
      expect(res.statusCode).toBe(404)
      expect(res.json().errors[0]).toMatchObject({ errorCode: 'not_found', additionalCode: 'CAR-4040' })
    }
    expect((await catalog(b)).find((c) => c.carrierId === theirs)?.name).toBe('Their Courier')
    expect((await catalog(a)).find((c) => c.carrierId === 'UPS')?.name).toBe('UPS')
  })

  it("deletes an unused courier and takes it out of every location's list; refuses one that packages name", async () => {
    const a = api(t, await t.newClient())
    const spare = (await a.ok('POST', '/api/v1/carriers/catalog', { name: 'Spare Courier' })).carrierId as string
    const used = (await a.ok('POST', '/api/v1/carriers/catalog', { name: 'Used Courier' })).carrierId as string
    const locationId = await a.location()
    await a.ok('PUT', `/api/v1/locations/${locationId}/carriers`, ['UPS', spare])
    await a.ok('POST', '/api/v1/packages', {
      package: { trackingNumber: trackingNumber('CUR'), carrier: { carrierId: used } },
      lastActivity: { status: 'RECEIVED' },
    })

    const refused = await a.call('DELETE', `/api/v1/carriers/catalog/${used}`)
    expect(refused.statusCode).toBe(409)
    expect(refused.json().errors[0]).toMatchObject({ additionalCode: 'CAR-4092', additionalParameters: 'carrierId' })
    expect((await catalog(a)).some((c) => c.carrierId === used)).toBe(true)

    expect((await a.call('DELETE', `/api/v1/carriers/catalog/${spare}`)).statusCode).toBe(204)
    expect((await catalog(a)).some((c) => c.carrierId === spare)).toBe(false)
    expect((await a.ok('GET', `/api/v1/locations/${locationId}`)).carriers).toEqual(['UPS'])
    expect((await a.call('DELETE', `/api/v1/carriers/catalog/${spare}`)).statusCode).toBe(404)
  })
})
