import { describe, expect, it } from 'vitest'
import { CARRIER_CODES, CARRIER_NAMES } from '../../src/decode/tables/carriers.js'
import { useTestApp } from '../support/use-test-app.js'

const t = useTestApp()

describe('the carrier catalogue and the decoder agree', () => {
  it("lists every carrier the decoder can name, by the decoder's name, barcode-aware and built in", async () => {
    const c = await t.newClient()
    const res = await t.inject({
      method: 'GET',
      url: '/api/v1/carriers/catalog?limit=200&barcodeAware=true',
      headers: c.auth,
    })
    expect(res.statusCode).toBe(200)
    const listed = new Map(
      res.json().carriers.map((x: { carrierId: string; name: string; builtIn: boolean }) => [x.carrierId, x]),
    )
    for (const code of CARRIER_CODES) {
      expect(listed.get(code), code).toMatchObject({
        carrierId: code,
        name: CARRIER_NAMES[code],
        barcodeAware: true,
        builtIn: true,
      })
    }
  })

  it('offers them at a location as POST /api/v1/carriers does', async () => {
    const c = await t.newClient()
    const loc = await t.inject({
      method: 'POST',
      url: '/api/v1/locations',
      headers: c.auth,
      payload: {
        name: 'Front desk',
        address: { line1: '1 Main St', city: 'Springfield', state: 'IL', postalCode: '62701', country: 'US' },
        timezone: 'America/Chicago',
      },
    })
    const res = await t.inject({
      method: 'POST',
      url: '/api/v1/carriers?size=200&barcodeAware=true',
      headers: c.auth,
      payload: [loc.json().locationId],
    })
    expect(res.statusCode).toBe(201)
    const ids = res.json().carriers.map((x: { carrierId: string }) => x.carrierId)
    for (const code of CARRIER_CODES) expect(ids, code).toContain(code)
  })
})
