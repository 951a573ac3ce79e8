import { beforeAll, describe, expect, it } from 'vitest'
import { itRefusesBadTokens } from '../support/auth-matrix.js'
import { useTestApp, useClient } from '../support/use-test-app.js'
import { api } from '../support/factories.js'
import { encodeImage } from '../decode/image/support/encode.js'
import { labelPhoto } from '../decode/image/support/scene.js'
import { renderSymbol, SYMBOLS } from '../decode/image/support/symbols.js'

const t = useTestApp()
const me = useClient(t)
let a: ReturnType<typeof api>
beforeAll(async () => {
  a = api(t, me)
})

const GS = '\x1d'
const RS = '\x1e'
const EOT = '\x04'
// A FedEx PDF417 payload as its label guide lays it out: format 01 with header 02, then format 06.
const FEDEX_2D = `[)>${RS}01${GS}02${GS}38017${GS}840${GS}01${GS}986578788855${GS}FDEB${GS}123456789${GS}200${GS}${GS}1/2${GS}7.00LB${GS}N${GS}9185 GRANT AVE${GS}COLLIERVILLE${GS}TN${RS}06${GS}10ZED008${GS}11ZJOHN DOE${GS}12Z9015551234${RS}${EOT}`

const decode = (raw: string, extra = '') =>
  a.call('GET', `/api/v1/packages/tracking/decode?trackingNumber=${encodeURIComponent(raw)}${extra}`)

describe('decode', () => {
  itRefusesBadTokens(
    () => t,
    [
      { method: 'GET', url: '/api/v1/packages/tracking/decode?trackingNumber=1Z999AA10123456784' },
      { method: 'POST', url: '/api/v1/packages/tracking/decode-image', payload: { imageId: 'img_x' } },
    ],
  )

  it('names the carrier and service of a 1D number whose check digit holds', async () => {
    const res = await decode(']C01Z999AA10123456784')
    expect(res.statusCode, res.body).toBe(200)
    const body = res.json()
    expect(body.package).toMatchObject({
      trackingNumber: '1Z999AA10123456784',
      carrier: { carrierId: 'UPS', name: 'UPS' },
      assetType: 'PACKAGE',
    })
    expect(body.decodedCarriers[0]).toMatchObject({ carrierId: 'UPS', checkDigitValid: true })
    expect(body.barcode.format).toBe('PLAIN')
    expect(body.package.packageId).toBeUndefined()
  })

  it('takes a scan with a NUL the scanner sent before the data (control characters are allowed here)', async () => {
    const res = await decode('\u0000]C01Z999AA10123456784')
    expect(res.statusCode, res.body).toBe(200)
    expect(res.json().package).toMatchObject({ trackingNumber: '1Z999AA10123456784', carrier: { carrierId: 'UPS' } })
  })

  it('states no carrier when the number fails its check, but lists what it could be', async () => {
    const body = (await decode('1Z999AA10123456785')).json()
    expect(body.package.carrier).toBeUndefined()
    expect(body.decodedCarriers.every((c: { checkDigitValid: boolean }) => !c.checkDigitValid)).toBe(true)
  })

  it('reads a 2D envelope: recipient, destination and raw fields, control characters and all', async () => {
    const body = (await decode(`]L2${FEDEX_2D}`)).json()
    expect(body.barcode).toMatchObject({ format: 'ISO15434', envelope: { formats: ['01', '06'], header: '02' } })
    expect(body.barcode.fields['11Z']).toBe('JOHN DOE')
    expect(body.package).toMatchObject({
      trackingNumber: '986578788855',
      carrier: { carrierId: 'FEDEX', scac: 'FDEB' },
      receiver: {
        name: 'JOHN DOE',
        postalCode: '38017',
        country: 'US',
        address: { line1: '9185 GRANT AVE', city: 'COLLIERVILLE', state: 'TN' },
      },
      packageCount: { n: 1, of: 2 },
    })
    expect(body.package.receiver.contactId).toBeUndefined()
  })

  it('links the recipient to the one matching contact, or lists the candidates', async () => {
    const c = await t.newClient()
    const b = api(t, c)
    const john = await b.contact('RECEIVER', 'John  Doe')
    await b.contact('SENDER', 'John Doe')
    const one = (
      await b.call('GET', `/api/v1/packages/tracking/decode?trackingNumber=${encodeURIComponent(FEDEX_2D)}`)
    ).json()
    expect(one.package.receiver.contactId).toBe(john)
    const twin = await b.contact('ALL', 'john doe')
    const two = (
      await b.call('GET', `/api/v1/packages/tracking/decode?trackingNumber=${encodeURIComponent(FEDEX_2D)}`)
    ).json()
    expect(two.package.receiver.contactId).toBeUndefined()
    expect(two.package.receiverCandidates.map((x: { contactId: string }) => x.contactId).sort()).toEqual(
      [john, twin].sort(),
    )
    // Another subscription's contacts never match.
    expect((await decode(FEDEX_2D)).json().package.receiverCandidates).toBeUndefined()
  })

  it('says when the subscription already holds the package', async () => {
    const m = await a.mailroom()
    const tn = '1Z999AA10123456784'
    expect((await decode(tn, '&expectedPackage=true')).json().package.expectedPackageFound).toBe(false)
    const id = (
      await a.ok('POST', '/api/v1/packages', {
        package: { trackingNumber: tn },
        lastActivity: { status: 'RECEIVED', location: { inboundSiteId: m.shelfId } },
      })
    ).packageId
    const body = (await decode(tn, '&expectedPackage=true')).json()
    expect(body.package).toMatchObject({
      packageId: id,
      currentStatus: 'RECEIVED',
      currentLocation: { inboundSiteId: m.shelfId },
      expectedPackageFound: true,
    })
    // The location as Get shows it: the same site reference, hierarchy and all.
    expect(body.package.currentLocation).toEqual(
      (await a.ok('GET', `/api/v1/packages/${id}?type=DETAILED`)).currentLocation,
    )
    await a.ok('PATCH', `/api/v1/packages/${id}/archive`, {}, 200)
    expect((await decode(tn)).json().package.packageId).toBeUndefined()
    expect((await decode(tn, '&editflow=true')).json().package.packageId).toBe(id)
    const other = api(t, await t.newClient())
    expect(
      (await other.call('GET', `/api/v1/packages/tracking/decode?trackingNumber=${tn}&editflow=true`)).json().package
        .packageId,
    ).toBeUndefined()
  })

  it('a bare shape or an SSCC is listed, never stated as package.carrier', async () => {
    const phone = (await decode('3318810025')).json() // passes DHL Express mod 7
    expect(phone.package.carrier).toBeUndefined()
    expect(phone.decodedCarriers[0]).toMatchObject({ carrierId: 'DHL_EXPRESS', checkDigitValid: true })
    const sscc = (await decode('00340434161094042557')).json()
    expect(sscc.package).toMatchObject({ trackingNumber: '340434161094042557' })
    expect(sscc.package.carrier).toBeUndefined()
    expect(sscc.decodedCarriers).toEqual([
      {
        carrierId: 'FEDEX',
        name: 'FedEx',
        checkDigitValid: true,
        trackingNumber: '00340434161094042557',
        trackingUrl: 'https://www.fedex.com/fedextrack/?trknbr=00340434161094042557',
      },
      // The same 20 digits are a USPS 20-digit number too (leading zeros leave its check as it is), listed second.
      {
        carrierId: 'USPS',
        name: 'USPS',
        checkDigitValid: true,
        trackingNumber: '00340434161094042557',
        trackingUrl: 'https://tools.usps.com/go/TrackConfirmAction?tLabels=00340434161094042557',
      },
    ])
  })

  it('a MaxiCode whose short field fits several 1Z numbers finds the package held under one of them', async () => {
    const b = api(t, await t.newClient())
    const m = await b.mailroom()
    const maxi = `[)>${RS}01${GS}96841706672${GS}840${GS}001${GS}1Z12345675${GS}UPSN${GS}12345E${GS}089${RS}${EOT}`
    const add = (tn: string) =>
      b.ok('POST', '/api/v1/packages', {
        package: { trackingNumber: tn },
        lastActivity: { status: 'RECEIVED', location: { inboundSiteId: m.shelfId } },
      })
    const id = (await add('1Z12345E4412345675')).packageId
    const res = (
      await b.call(
        'GET',
        `/api/v1/packages/tracking/decode?trackingNumber=${encodeURIComponent(maxi)}&expectedPackage=true`,
      )
    ).json()
    expect(res.package).toMatchObject({
      trackingNumber: '1Z12345675',
      carrier: { carrierId: 'UPS', scac: 'UPSN' },
      service: { code: '001', name: 'Next Day Air' },
      packageId: id,
      expectedPackageFound: true,
    })
    expect(res.decodedCarriers.map((c: { trackingNumber: string }) => c.trackingNumber)).toEqual([
      '1Z12345E0112345675',
      '1Z12345E4412345675',
      '1Z12345EA012345675',
    ])
    // A second fitting number on file too: which one is meant is the clerk's call.
    await add('1Z12345E0112345675')
    const two = (
      await b.call(
        'GET',
        `/api/v1/packages/tracking/decode?trackingNumber=${encodeURIComponent(maxi)}&expectedPackage=true`,
      )
    ).json()
    expect(two.package.packageId).toBeUndefined()
    expect(two.package.expectedPackageFound).toBe(false)
  })

  it('a ship-to naming only a company links the contact of that name', async () => {
    const b = api(t, await t.newClient())
    const acme = await b.contact('RECEIVER', 'Acme Corp')
    const scan = `]d2${GS}00340434161094042557${GS}4300ACME%20CORP${GS}4305SPRINGFIELD${GS}4306IL${GS}4307US`
    const body = (
      await b.call('GET', `/api/v1/packages/tracking/decode?trackingNumber=${encodeURIComponent(scan)}`)
    ).json()
    expect(body.package.receiver).toMatchObject({ company: 'ACME CORP', contactId: acme, country: 'US' })
    expect(body.package.destination).toEqual({ city: 'SPRINGFIELD', state: 'IL', country: 'US' })
  })

  it('a ship-to naming only a company lists the people at it when no contact is named after it', async () => {
    const b = api(t, await t.newClient())
    const grace = await b.contact('RECEIVER', 'Grace Hopper', { company: 'Initech' })
    const peter = await b.contact('ALL', 'Peter Gibbons', { company: 'INITECH' })
    await b.contact('SENDER', 'Bill Lumbergh', { company: 'Initech' })
    const scan = `]d2${GS}00340434161094042557${GS}4300INITECH${GS}4307US`
    const body = (
      await b.call('GET', `/api/v1/packages/tracking/decode?trackingNumber=${encodeURIComponent(scan)}`)
    ).json()
    expect(body.package.receiver.contactId).toBeUndefined()
    expect(body.package.receiverCandidates.map((c: { contactId: string }) => c.contactId).sort()).toEqual(
      [grace, peter].sort(),
    )
  })

  it('the OpenAPI description says when package.carrier is set', async () => {
    const doc = (await t.inject({ method: 'GET', url: '/openapi.json' })).json()
    const op = doc.paths['/api/v1/packages/tracking/decode'].get
    expect(op.description).toContain('When `package.carrier` is set.')
    expect(op.description).toContain('A bare shape never sets `package.carrier`')
  })

  it('answers unreadable input with a clear 400, never a 500', async () => {
    for (const raw of ['\x1d\x1e\x04', '   ', '%%%%', 'x'.repeat(20_000)]) {
      const res = await decode(raw)
      expect(res.statusCode, JSON.stringify(raw)).toBe(400)
      expect(res.json().errors[0]).toMatchObject({
        errorCode: 'validation_error',
        additionalParameters: 'trackingNumber',
      })
      expect(res.json().errors[0].errorDescription.length).toBeGreaterThan(10)
    }
    const missing = await a.call('GET', '/api/v1/packages/tracking/decode')
    expect(missing.statusCode).toBe(400)
    expect(missing.json().errors[0].additionalParameters).toBe('trackingNumber')
    expect((await decode('1Z999AA10123456784', '&expectedPackage=maybe')).statusCode).toBe(400)
  })
})

describe('decode-image', () => {
  it('finds and decodes every barcode in a label photo', async () => {
    const ups = await renderSymbol(SYMBOLS.upsCode128, 3)
    const usps = await renderSymbol(SYMBOLS.uspsImpb, 3)
    const photo = labelPhoto({
      width: 1000,
      height: 700,
      seed: 7,
      blur: 1,
      noise: 4,
      placements: [
        { symbol: ups, at: { x: 0.35, y: 0.3 }, degrees: 3 },
        { symbol: usps, at: { x: 0.5, y: 0.72 }, degrees: -2 },
      ],
    })
    const base64 = `data:image/jpeg;base64,${Buffer.from(encodeImage(photo, 'jpeg')).toString('base64')}`
    const res = await a.call('POST', '/api/v1/packages/tracking/decode-image', { base64 })
    expect(res.statusCode, res.body).toBe(200)
    const found = res.json().barcodes as Array<{
      symbology: string
      decoded?: { package: { trackingNumber: string; carrier?: { carrierId: string } } }
    }>
    const numbers = found.map((b) => b.decoded?.package.trackingNumber).sort()
    expect(numbers).toEqual(['1Z999AA10123456784', '9261299990000123456788'])
    expect(
      found.find((b) => b.decoded?.package.trackingNumber === '1Z999AA10123456784')!.decoded!.package.carrier
        ?.carrierId,
    ).toBe('UPS')

    // The same picture uploaded first, then decoded by its id.
    const uploaded = await a.ok('POST', '/api/v1/packages/images', { base64 }, 200)
    const byId = await a.call('POST', '/api/v1/packages/tracking/decode-image', { imageId: uploaded.imageId })
    expect(byId.json().barcodes).toHaveLength(2)
  })

  it('refuses unreadable pictures and ambiguous bodies with a 400', async () => {
    const notImage = `data:image/png;base64,${Buffer.from('not a picture').toString('base64')}`
    expect((await a.call('POST', '/api/v1/packages/tracking/decode-image', { base64: notImage })).statusCode).toBe(400)
    expect((await a.call('POST', '/api/v1/packages/tracking/decode-image', {})).statusCode).toBe(400)
    expect(
      (await a.call('POST', '/api/v1/packages/tracking/decode-image', { imageId: 'img_missing' })).statusCode,
    ).toBe(404)
  })
})
