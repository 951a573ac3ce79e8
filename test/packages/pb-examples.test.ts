import { beforeAll, describe, expect, it } from 'vitest'
import { useTestApp, useClient } from '../support/use-test-app.js'
import { api, PNG_1PX } from '../support/factories.js'
import { CARRIER_ALIASES, carrierKey, findCarrier } from '../../src/carriers/model/carrier-aliases.js'
import { AddPackageSchema, PackageRecordSchema, UpdatePackageSchema } from '../../src/packages/api/schemas.js'

// The Pitney Bowes documented example requests (PB-REFERENCE.md §4.2, §4.3, §11), sent as written:
// only the ids are replaced by ids that exist in this subscription (PB's example ids name PB's data).

const t = useTestApp()
const me = useClient(t)
let a: ReturnType<typeof api>
let m: Awaited<ReturnType<ReturnType<typeof api>['mailroom']>>
let endUser: string
beforeAll(async () => {
  a = api(t, me)
  m = await a.mailroom()
  endUser = (await a.ok('POST', '/api/v1/customfields', { name: 'End User', dataType: 'TEXT' })).customFieldId
})

/** PB's example ids → ids of this subscription, replaced wherever they appear in the JSON text. */
function substitute(example: string, ids: Record<string, string>): unknown {
  let text = example
  for (const [pb, ours] of Object.entries(ids)) text = text.split(pb).join(ours)
  return JSON.parse(text)
}
async function tempURL(): Promise<string> {
  return (await a.ok('POST', '/api/v1/packages/images', { base64: PNG_1PX }, 200)).tempURL
}
const exampleIds = async () => ({
  '5f508e6baa797f3c3d092307': m.allId, // sender, receiver and givenTo are one contact in the examples: an ALL contact.
  o1axRY2NKxq: endUser,
  zy0a23Bo4Gn0: m.shelfId,
  'temp/images/vvrbWY3rRBz': await tempURL(),
})

// §4.2, verbatim.
const ADD_EXAMPLE = `{
  "package": {
    "trackingNumber": "PB7WMALJAWRMJW", "assetType": "PACKAGE", "damaged": false, "timezone": -330,
    "carrier": {"carrierId": "FedEx"},
    "currentStatus": "RECEIVED",
    "customFields": [{"name": "End User", "status": "ACTIVE", "customFieldId": "o1axRY2NKxq", "value": "string"}],
    "sender": {"contactId": "5f508e6baa797f3c3d092307"},
    "receiver": {"contactId": "5f508e6baa797f3c3d092307"},
    "givenTo": {"contactId": "5f508e6baa797f3c3d092307"},
    "comment": "User comments", "confirmationType": "PHONE", "additionalConfirmationType": "SIGNATURE"
  },
  "lastActivity": {"status": "RECEIVED", "location": {"inboundSiteId": "zy0a23Bo4Gn0"}},
  "images": [{"imageLevel": "ASSET", "imageType": "PHOTO", "tempURL": "temp/images/vvrbWY3rRBz", "contentType": "image/png"}]
}`

// §4.3, verbatim.
const UPDATE_EXAMPLE = `{
  "package": {
    "trackingNumber": "TB123456789ABCE", "assetType": "PACKAGE", "damaged": false, "timezone": -330,
    "sender": {"contactId": "5f508e6baa797f3c3d092307"},
    "receiver": {"contactId": "5f508e6baa797f3c3d092307"},
    "givenTo": {"contactId": "5f508e6baa797f3c3d092307"},
    "comment": "User comments", "confirmationType": "PHONE", "additionalConfirmationType": "SIGNATURE",
    "customFields": [{"name": "End User", "status": "ACTIVE", "customFieldId": "o1axRY2NKxq", "value": "end user"}]
  },
  "lastActivity": {"status": "RECEIVED", "location": {"inboundSiteId": "zy0a23Bo4Gn0"}},
  "images": [{"imageLevel": "ASSET", "imageType": "PHOTO", "tempURL": "temp/images/vvrbWY3rRBz", "contentType": "image/png"}]
}`

describe('the documented Pitney Bowes requests', () => {
  it('Add Package (§4.2): 201 {packageId, trackingNumber, images[].imageId}; FedEx is our FEDEX', async () => {
    const ids = await exampleIds()
    const res = await a.call('POST', '/api/v1/packages', substitute(ADD_EXAMPLE, ids))
    expect(res.statusCode, res.body).toBe(201)
    const body = res.json()
    expect(body).toEqual({
      packageId: expect.any(String),
      trackingNumber: 'PB7WMALJAWRMJW',
      images: [
        {
          imageId: expect.any(String),
          contentType: 'image/png',
          tempURL: ids['temp/images/vvrbWY3rRBz'],
          imageType: 'PHOTO',
        },
      ],
    })
    const rec = await a.ok('GET', `/api/v1/packages/${body.packageId}?type=DETAILED`)
    expect(rec).toMatchObject({
      trackingNumber: 'PB7WMALJAWRMJW',
      currentStatus: 'RECEIVED',
      carrier: { carrierId: 'FEDEX', name: 'FedEx' },
      timezone: -330,
      damaged: false,
      customFields: [{ customFieldId: endUser, name: 'End User', status: 'ACTIVE', value: 'string' }],
      sender: { contactId: m.allId },
      receiver: { contactId: m.allId },
      givenTo: { contactId: m.allId },
      comment: 'User comments',
      confirmationType: 'PHONE',
      additionalConfirmationType: 'SIGNATURE',
      currentLocation: { inboundSiteId: m.shelfId },
    })
    // Adding it again: 409 already_exists, as documented ("will return an error").
    const again = await a.call('POST', '/api/v1/packages', substitute(ADD_EXAMPLE, await exampleIds()))
    expect(again.statusCode).toBe(409)
    expect(again.json().errors[0]).toMatchObject({
      errorCode: 'already_exists',
      additionalParameters: 'package.trackingNumber',
    })
  })

  it('Update Package (§4.3): 200 {packageId, trackingNumber, images[]{imageId, tempURL, imageType}}; no carrier, a non-PB number', async () => {
    const added = await a.ok('POST', '/api/v1/packages', {
      package: { trackingNumber: 'PB4OZAWWNPBGB', receiver: { contactId: m.receiverId } },
    })
    const ids = await exampleIds()
    const res = await a.call('PUT', `/api/v1/packages/${added.packageId}`, substitute(UPDATE_EXAMPLE, ids))
    expect(res.statusCode, res.body).toBe(200)
    expect(res.json()).toEqual({
      packageId: added.packageId,
      trackingNumber: 'TB123456789ABCE',
      images: [
        {
          imageId: expect.any(String),
          tempURL: ids['temp/images/vvrbWY3rRBz'],
          imageType: 'PHOTO',
          contentType: 'image/png',
        },
      ],
    })
    const rec = await a.ok('GET', `/api/v1/packages/${added.packageId}?type=DETAILED`)
    expect(rec).toMatchObject({
      trackingNumber: 'TB123456789ABCE',
      receiver: { contactId: m.allId },
      customFields: [{ customFieldId: endUser, value: 'end user' }],
    })
    // An unknown package id: 404 not_found.
    const unknown = await a.call(
      'PUT',
      '/api/v1/packages/NeLnz9LZ1j4KK5WlEOlyW',
      substitute(UPDATE_EXAMPLE, await exampleIds()),
    )
    expect(unknown.statusCode).toBe(404)
    expect(unknown.json().errors[0]).toMatchObject({ errorCode: 'not_found' })
  })

  it('Search (§11): the documented query, with a Content-Type header and no body', async () => {
    const res = await t.inject({
      method: 'GET',
      url: `/api/v1/packages?search=trackingNumber:PBKWJAMJYW9ND&searchPosition=ends&status=UNDELIVERED&location=${m.siteId}&sort=insertTimestamp,DESC&page=1&size=25&startDate=2024-11-27T18:30:00.000Z&endDate=2024-11-28T18:30:00.000Z&secondTierSearchSelected=false&includeEmptyPackageLocation=true`,
      headers: {
        ...me.auth,
        'content-type': 'application/json',
        'x-pb-transactionid': 'abc-123',
        'x-pb-developer-partner-id': 'partner',
      },
    })
    expect(res.statusCode, res.body).toBe(200)
    expect(res.json()).toEqual({ packages: [], totalCount: 0 })
  })

  it('Custom header search (§4.5, §11): the documented body, and {}', async () => {
    const body =
      JSON.parse(`{"subId": "subID", "userName": "Operator", "insertTimestamp": "ReceivedDate", "packageId": "Package ID",
 "currentLocation.name": "Site Name", "currentStatus": "Status", "locationZip": "Location ZIP",
 "lockerBank": "Locker Bank", "deliveryClerk": "Delivered By", "receiveClerk": "Received By",
 "givenTo.name": "Given To", "currentRoute.routeName": "Route", "deliveryTime": "Delivery Time"}`)
    const url = `/api/v1/packages/search?page=1&size=25&status=UNDELIVERED&sort=insertTimestamp&inboundSiteId=${m.siteId}`
    const res = await a.call('POST', url, body)
    expect(res.statusCode, res.body).toBe(200)
    const rows = res.json().packages as Array<Record<string, string>>
    expect(rows.length).toBeGreaterThan(0)
    expect(rows[0]).toMatchObject({ Status: expect.any(String), 'Delivered By': '', 'Locker Bank': '' })
    const empty = await a.call('POST', url, {})
    expect(empty.statusCode, empty.body).toBe(200)
  })

  it('Image upload (§11): read as JSON when no Content-Type is sent', async () => {
    const res = await t.inject({
      method: 'POST',
      url: '/api/v1/packages/images',
      payload: JSON.stringify({ base64: PNG_1PX }),
      headers: { ...me.auth },
    })
    expect(res.statusCode, res.body).toBe(200)
    expect(res.json()).toEqual({
      imageId: expect.any(String),
      tempURL: expect.stringMatching(/^temp\/images\//),
      contentType: 'image/png',
    })
  })

  it('Create Image (§11) without Content-Type still refuses what is not JSON', async () => {
    const res = await t.inject({
      method: 'POST',
      url: '/api/v1/packages/images',
      payload: 'base64=abc',
      headers: { ...me.auth },
    })
    expect(res.statusCode).toBe(400)
    expect(res.json().errors[0]).toMatchObject({ errorCode: 'validation_error' })
  })
})

describe('what a read returns, a write accepts', () => {
  it('a DETAILED record sent back as the package of an Update is accepted; read-only members change nothing', async () => {
    const label = await tempURL()
    const added = await a.ok('POST', '/api/v1/packages', {
      package: {
        trackingNumber: 'PB4OZAWWNPBG',
        carrier: { carrierId: 'UPS' },
        sender: { contactId: m.senderId },
        receiver: { contactId: m.receiverId },
        customFields: [{ customFieldId: endUser, value: 'Ada' }],
        currentRoute: { routeName: 'North' },
      },
      lastActivity: { status: 'RECEIVED', location: { inboundSiteId: m.shelfId, packageLocation: 'Bin 2' } },
      images: [{ imageLevel: 'ASSET', imageType: 'LABEL', tempURL: label }],
    })
    const rec = await a.ok('GET', `/api/v1/packages/${added.packageId}?type=DETAILED`)
    // Everything a read returns is there: contacts with their site references, the site, the carrier name.
    expect(rec).toMatchObject({
      receiver: { name: 'Ada Lovelace' },
      currentLocation: { name: 'Shelf 1', topTier: { inboundSiteId: m.siteId } },
      carrier: { name: 'UPS' },
      customFields: [{ name: 'End User', status: 'ACTIVE' }],
    })
    const lying = {
      ...rec,
      currentStatus: 'DELIVERED',
      archived: true,
      packageId: 'pkg_someone_else',
      version: 99,
      userName: 'mallory',
      lockerBank: 'X',
      insertTimestamp: '2001-01-01T00:00:00.000Z',
    }
    const res = await a.call('PUT', `/api/v1/packages/${added.packageId}`, {
      package: lying,
      lastActivity: { status: 'OUT_FOR_DELIVERY' },
    })
    expect(res.statusCode, res.body).toBe(200)
    const after = await a.ok('GET', `/api/v1/packages/${added.packageId}?type=DETAILED`)
    const { version: _v, updateTimestamp: _u, currentStatus, ...rest } = after
    const { version: _v0, updateTimestamp: _u0, currentStatus: _c0, ...restBefore } = rec
    expect(currentStatus).toBe('OUT_FOR_DELIVERY')
    expect(after.version).toBe(rec.version + 1)
    expect(rest).toEqual(restBefore)
    // The activity's location as a site reference, the images as type=IMAGES lists them.
    const { images } = await a.ok('GET', `/api/v1/packages/${added.packageId}?type=IMAGES`)
    const again = await a.call('PUT', `/api/v1/packages/${added.packageId}`, {
      package: {},
      lastActivity: { status: 'RECEIVED', location: rec.currentLocation },
      images: [{ ...images[0], tempURL: await tempURL() }],
    })
    expect(again.statusCode, again.body).toBe(200)
    // And as the package of an Add (a copy under a new number).
    const copy = await a.call('POST', '/api/v1/packages', { package: { ...rec, trackingNumber: 'PB4OZAWWNPBH' } })
    expect(copy.statusCode, copy.body).toBe(201)
  })

  it('Pitney Bowes contact and site shapes (decode §4.1) are accepted inside contacts', async () => {
    const pbLocation = {
      inboundSiteId: 'zy0a23Bo4Gn0',
      name: 'Site 1CD1001RMF',
      parent: 'Site',
      type: 'site',
      locationHierarchy: 'Noida, Office of CG| Noida,Bldg| Noida,Floor| Noida,MS',
      ancestorlist: ['k5OrZWe0ly6dg1v', 'gKP4RNbMzrPO', 'XbyR9zpPDneY'],
      topTier: { inboundSiteId: 'EMPTY_SITE', name: 'EMPTY_SITE' },
    }
    const contact = {
      personalId: 'jy32',
      contactId: m.allId,
      name: 'contact_name',
      company: 'company_name',
      phone: '1234567890',
      location: pbLocation,
      mailStopLocation: { inboundSiteId: 'zy0a23Bo4Gn0', name: 'MS' },
    }
    const res = await a.call('POST', '/api/v1/packages', {
      package: {
        trackingNumber: 'PBKWJAMJYW9ND',
        sender: contact,
        receiver: contact,
        currentLocation: { inboundSiteId: m.shelfId, name: 'Shelf 1' },
      },
    })
    expect(res.statusCode, res.body).toBe(201)
    const rec = await a.ok('GET', `/api/v1/packages/${res.json().packageId}?type=DETAILED`)
    // The contact is the one the id names, not the names sent with it.
    expect(rec.receiver).toMatchObject({ contactId: m.allId, name: 'Grace Hopper' })
    expect(rec.receiver.company).toBeUndefined()
  })

  it('a member that is in no schema is still a 400 naming it, at any depth', async () => {
    const cases: Array<[Record<string, unknown>, string]> = [
      [{ trackingNumber: 'PBZZ1', colour: 'red' }, 'package.colour'],
      [{ trackingNumber: 'PBZZ1', carrier: { carrierId: 'UPS', colour: 'red' } }, 'package.carrier.colour'],
      [
        { trackingNumber: 'PBZZ1', receiver: { contactId: m.receiverId, nickname: 'Ada' } },
        'package.receiver.nickname',
      ],
      [
        {
          trackingNumber: 'PBZZ1',
          receiver: { contactId: m.receiverId, location: { inboundSiteId: m.siteId, floor: 3 } },
        },
        'package.receiver.location.floor',
      ],
      [
        { trackingNumber: 'PBZZ1', currentLocation: { topTier: { inboundSiteId: 'x', level: 1 } } },
        'package.currentLocation.topTier.level',
      ],
      [
        { trackingNumber: 'PBZZ1', customFields: [{ customFieldId: endUser, value: 'x', label: 'End User' }] },
        'package.customFields[0].label',
      ],
    ]
    for (const [pkg, field] of cases) {
      const res = await a.call('POST', '/api/v1/packages', { package: pkg })
      expect(res.statusCode, `${field}: ${res.body}`).toBe(400)
      // A nullable object also reports that it is not null: every item names the member or an object holding it.
      const fields = res.json().errors.map((e: { additionalParameters: string }) => e.additionalParameters) as string[]
      expect(fields[0]).toBe(field)
      expect(fields.filter((f) => !field.startsWith(f))).toEqual([])
    }
    const activity = await a.call('POST', '/api/v1/packages', {
      package: { trackingNumber: 'PBZZ1' },
      lastActivity: { status: 'RECEIVED', location: { inboundSiteId: m.siteId, name: 'HQ', floor: 3 } },
    })
    expect(activity.json().errors.map((e: { additionalParameters: string }) => e.additionalParameters)).toEqual([
      'lastActivity.location.floor',
    ])
    const image = await a.call('POST', '/api/v1/packages', {
      package: { trackingNumber: 'PBZZ1' },
      images: [{ imageLevel: 'ASSET', imageType: 'PHOTO', tempURL: 'temp/images/x', imageId: 'img_1', size: 3 }],
    })
    expect(image.json().errors.map((e: { additionalParameters: string }) => e.additionalParameters)).toEqual([
      'images[0].size',
    ])
    // A read-only member of the wrong type is not what a read returns.
    const wrongType = await a.call('POST', '/api/v1/packages', { package: { trackingNumber: 'PBZZ1', archived: 'no' } })
    expect(wrongType.statusCode).toBe(400)
    expect(wrongType.json().errors[0].additionalParameters).toBe('package.archived')
  })
})

describe('carrier ids as Pitney Bowes clients send them', () => {
  const carrierOf = async (carrierId: string) => {
    const res = await a.call('POST', '/api/v1/packages', {
      package: {
        trackingNumber: `PBCAR${Math.random().toString(36).slice(2, 10).toUpperCase()}`,
        carrier: { carrierId },
      },
    })
    if (res.statusCode !== 201) return { status: res.statusCode, errors: res.json().errors }
    return (await a.ok('GET', `/api/v1/packages/${res.json().packageId}?type=DETAILED`)).carrier
  }

  it.each([
    ['FedEx', 'FEDEX'],
    ['fedex', 'FEDEX'],
    ['UPS', 'UPS'],
    ['ups', 'UPS'],
    ['USPS', 'USPS'],
    ['DHL', 'DHL_EXPRESS'],
    ['DHL Express', 'DHL_EXPRESS'],
    ['dhl_ecommerce', 'DHL_ECOMMERCE'],
    ['Amazon', 'AMAZON'],
    ['Amazon Logistics', 'AMAZON'],
    ['AMZL', 'AMAZON'],
    ['Canada Post', 'CANADA_POST'],
    ['OnTrac', 'ONTRAC'],
    ['Federal Express', 'FEDEX'],
    ['FDXE', 'FEDEX'],
  ])('%s is recorded as %s', async (sent, canonical) => {
    expect(await carrierOf(sent)).toMatchObject({ carrierId: canonical })
  })

  it('a subscription courier matches by its id and by its name; an unknown carrier is a 400 naming the field', async () => {
    const courier = await a.ok('POST', '/api/v1/carriers/catalog', { name: 'Speedy Bikes' })
    expect(await carrierOf(courier.carrierId)).toEqual({ carrierId: courier.carrierId, name: 'Speedy Bikes' })
    expect(await carrierOf('speedy-bikes')).toEqual({ carrierId: courier.carrierId, name: 'Speedy Bikes' })
    expect(await carrierOf('Pony Express')).toMatchObject({
      status: 400,
      errors: [{ additionalParameters: 'package.carrier.carrierId' }],
    })
    // Another subscription's courier is not visible, by id or by name.
    const other = api(t, await t.newClient())
    expect(
      (
        await other.call('POST', '/api/v1/packages', {
          package: { trackingNumber: 'PBOTHER1', carrier: { carrierId: 'Speedy Bikes' } },
        })
      ).statusCode,
    ).toBe(400)
  })
})

describe('one home for each fact', () => {
  it('a package write accepts every member of the Package record (derived, never listed by hand)', () => {
    for (const schema of [AddPackageSchema, UpdatePackageSchema]) {
      expect(Object.keys(schema.properties.package.properties)).toEqual(
        expect.arrayContaining(Object.keys(PackageRecordSchema.properties)),
      )
    }
  })

  it('carrier aliases are written as carrierKey gives them, and lose to an exact or loose match', () => {
    for (const key of Object.keys(CARRIER_ALIASES)) expect(carrierKey(key)).toBe(key)
    const catalogue = [
      { carrier_id: 'DHL_EXPRESS', name: 'DHL Express', scac: null },
      { carrier_id: 'car_1', name: 'DHL', scac: null },
    ]
    // A subscription's courier named DHL is what "DHL" means there.
    expect(findCarrier(catalogue, 'dhl')?.carrier_id).toBe('car_1')
    // A key two carriers share names neither.
    expect(findCarrier([...catalogue, { carrier_id: 'car_2', name: 'D.H.L.', scac: null }], 'dhl')).toBeUndefined()
    expect(findCarrier(catalogue, ' - ')).toBeUndefined()
  })
})
