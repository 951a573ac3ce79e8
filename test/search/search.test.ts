import { parse as parseCsv } from 'csv-parse/sync'
import { beforeAll, describe, expect, it } from 'vitest'
import { itRefusesBadTokens } from '../support/auth-matrix.js'
import { useTestApp, useClient } from '../support/use-test-app.js'
import { api } from '../support/factories.js'

const t = useTestApp()
const me = useClient(t)
let a: ReturnType<typeof api>
let m: Awaited<ReturnType<ReturnType<typeof api>['mailroom']>>
const ids: Record<string, string> = {}

beforeAll(async () => {
  a = api(t, me)
  m = await a.mailroom()
  const bob = await a.contact('RECEIVER', 'Bob Marley', {
    email: 'bob@reggae.example',
    personalId: 'EMP-778',
    company: 'Tuff Gong',
  })
  const department = (await a.ok('POST', '/api/v1/customfields', { name: 'Department', dataType: 'TEXT' }))
    .customFieldId
  const project = (await a.ok('POST', '/api/v1/customfields', { name: 'Project', dataType: 'TEXT' })).customFieldId
  const add = async (key: string, pkg: Record<string, unknown>, activity?: Record<string, unknown>) => {
    ids[key] = (
      await a.ok('POST', '/api/v1/packages', { package: pkg, ...(activity ? { lastActivity: activity } : {}) })
    ).packageId
    t.clock.advance(1000)
  }
  await add(
    'ups',
    {
      trackingNumber: '1Z999AA10123456784',
      receiver: { contactId: m.receiverId },
      carrier: { carrierId: 'UPS' },
      comment: 'Leave at desk',
      customFields: [
        { customFieldId: department, value: 'Finance "North" \\ Ops' },
        { customFieldId: project, value: 'Apollo' },
      ],
    },
    { status: 'RECEIVED', location: { inboundSiteId: m.shelfId, packageLocation: 'Bin 7' } },
  )
  await add(
    'fedex',
    { trackingNumber: '986578788855', receiver: { contactId: bob }, carrier: { carrierId: 'FEDEX' } },
    { status: 'READY_FOR_PICKUP', location: { inboundSiteId: m.buildingId } },
  )
  await add(
    'usps',
    {
      trackingNumber: '9400111899223197428490',
      receiver: { contactId: m.allId },
      comment: '=HYPERLINK("http://evil")',
    },
    { status: 'DELIVERED', location: { inboundSiteId: m.siteId } },
  )
  await add(
    'locker',
    {
      trackingNumber: 'TBA123456789012',
      receiver: { contactId: bob },
      customFields: [{ customFieldId: project, value: 'North Star' }],
    },
    { status: 'IN_LOCKER', location: { inboundSiteId: m.shelfId, lockerBank: 'North', lockerUnit: '4' } },
  )
})

const list = async (query: string) => {
  const res = await a.call('GET', `/api/v1/packages?${query}`)
  expect(res.statusCode, `${query}: ${res.body}`).toBe(200)
  return res.json<{ packages: Array<{ packageId: string }>; totalCount: number }>()
}
const found = async (query: string) =>
  (await list(query)).packages.map((p) => Object.entries(ids).find(([, v]) => v === p.packageId)?.[0])

describe('GET /api/v1/packages', () => {
  itRefusesBadTokens(
    () => t,
    [
      { method: 'GET', url: '/api/v1/packages?search=trackingNumber:1Z9' },
      { method: 'POST', url: '/api/v1/packages/search', payload: {} },
    ],
  )

  it('finds by tracking number: contains, starts, ends, case- and space-insensitive', async () => {
    expect(await found('search=trackingNumber:999aa1')).toEqual(['ups'])
    expect(await found('search=trackingNumber:1z 999&searchPosition=starts')).toEqual(['ups'])
    expect(await found('search=trackingNumber:8855&searchPosition=ends')).toEqual(['fedex'])
    expect(await found('search=trackingNumber:94&searchPosition=starts')).toEqual(['usps'])
    expect(await found('search=trackingNumber:zzz')).toEqual([])
    // LIKE wildcards in the value are literal.
    expect(await found('search=trackingNumber:%25%25%25')).toEqual([])
  })

  it('finds by names, comment, location, locker, carrier, package id', async () => {
    expect(await found('search=receiver.name:lovelace')).toEqual(['ups'])
    expect(await found('search=receiver.name:MARLEY&sort=trackingNumber,ASC')).toEqual(['fedex', 'locker'])
    expect(await found('search=comment:at desk')).toEqual(['ups'])
    expect(await found('search=packageLocation:bin')).toEqual(['ups'])
    expect(await found('search=lockerBank:nor')).toEqual(['locker'])
    expect(await found('search=carrier.name:fedex')).toEqual(['fedex'])
    expect(await found(`search=packageId:${ids.usps}`)).toEqual(['usps'])
  })

  it('matches a package id exactly by default, and by its beginning or end with searchPosition', async () => {
    const id = ids.fedex!
    expect(await found(`search=packageId:${id.toUpperCase()}`)).toEqual(['fedex'])
    // Not a contains search: part of an id finds nothing, however long.
    expect(await found(`search=packageId:${id.slice(0, -1)}`)).toEqual([])
    expect(await found(`search=packageId:${id.slice(4, 20)}`)).toEqual([])
    expect(await found(`search=packageId:${id.slice(-10).toUpperCase()}&searchPosition=ends`)).toEqual(['fedex'])
    expect((await found(`search=packageId:${id.slice(0, 4)}&searchPosition=starts`)).sort()).toEqual([
      'fedex',
      'locker',
      'ups',
      'usps',
    ])
    expect(await found(`search=packageId:${id.slice(0, -3)}&searchPosition=starts`)).toEqual(['fedex'])
    expect(await found('search=packageId:pkg_%25&searchPosition=starts')).toEqual([])
  })

  it('finds by custom-field value, per field, at any position, quotes and backslashes included', async () => {
    expect(await found('search=customFields.Department:finance')).toEqual(['ups'])
    expect(await found('search=customFields.department:"NORTH" \\ o')).toEqual(['ups'])
    expect(await found('search=customFields.Department:fin&searchPosition=starts')).toEqual(['ups'])
    expect(await found('search=customFields.Department:ops&searchPosition=ends')).toEqual(['ups'])
    expect(await found('search=customFields.Department:north&searchPosition=starts')).toEqual([])
    // One field's value does not answer for another field.
    expect(await found('search=customFields.Project:north&searchPosition=starts')).toEqual(['locker'])
    expect(await found('search=customFields.Department:apollo')).toEqual([])
    expect(await found('search=customFields.Colour:apollo')).toEqual([])
    // The value starts the second field of ups, not its first: still a match for that field.
    expect(await found('search=customFields.Project:apo&searchPosition=starts')).toEqual(['ups'])
  })

  it('finds by comment and locker bank at every position', async () => {
    expect(await found('search=comment:leave&searchPosition=starts')).toEqual(['ups'])
    expect(await found('search=comment:desk&searchPosition=ends')).toEqual(['ups'])
    expect(await found('search=comment:desk&searchPosition=starts')).toEqual([])
    expect(await found('search=lockerBank:TH&searchPosition=ends')).toEqual(['locker'])
    expect(await found('search=lockerBank:ort')).toEqual(['locker'])
  })

  it('extends a name search to email, personalId, company and custom-field values with secondTierSearchSelected', async () => {
    expect(await found('search=receiver.name:apollo')).toEqual([])
    expect(await found('search=receiver.name:apollo&secondTierSearchSelected=true')).toEqual(['ups'])
    expect(await found('search=sender.name:"north"&secondTierSearchSelected=true')).toEqual(['ups'])
    expect(await found('search=receiver.name:ada@exam&secondTierSearchSelected=true')).toEqual(['ups'])
    expect(await found('search=receiver.name:reggae')).toEqual([])
    expect((await found('search=receiver.name:reggae&secondTierSearchSelected=true')).sort()).toEqual([
      'fedex',
      'locker',
    ])
    expect((await found('search=receiver.name:EMP-77&secondTierSearchSelected=true')).sort()).toEqual([
      'fedex',
      'locker',
    ])
    expect((await found('search=receiver.name:tuff gong&secondTierSearchSelected=true')).sort()).toEqual([
      'fedex',
      'locker',
    ])
  })

  it('includes packages without a package location on request', async () => {
    expect((await found('search=packageLocation:bin&includeEmptyPackageLocation=true')).sort()).toEqual([
      'fedex',
      'locker',
      'ups',
      'usps',
    ])
  })

  it('filters by status (UNDELIVERED too), location subtree and dates, sorts and pages', async () => {
    expect(await found('search=receiver.name:a&searchPosition=starts&status=DELIVERED')).toEqual([])
    const any = 'search=trackingNumber:1&searchPosition=starts'
    expect(await found(any)).toEqual(['ups'])
    const everything = async (q: string) =>
      (await Promise.all(['1', '9', 'T'].map((p) => found(`search=trackingNumber:${p}&searchPosition=starts&${q}`))))
        .flat()
        .sort()
    expect(await everything('status=UNDELIVERED')).toEqual(['fedex', 'locker', 'ups'])
    expect(await everything('status=DELIVERED,IN_LOCKER')).toEqual(['locker', 'usps'])
    expect(await everything(`location=${m.buildingId}`)).toEqual(['fedex', 'locker', 'ups'])
    expect(await everything(`location=${m.shelfId}`)).toEqual(['locker', 'ups'])
    const marley = 'search=receiver.name:marley'
    expect(await found(`${marley}&sort=insertTimestamp,ASC`)).toEqual(['fedex', 'locker'])
    expect(await found(`${marley}`)).toEqual(['locker', 'fedex'])
    const paged = await list(`${marley}&sort=insertTimestamp,ASC&page=2&size=1`)
    expect(paged.totalCount).toBe(2)
    expect(paged.packages.map((p) => p.packageId)).toEqual([ids.locker])
    const future = new Date(t.clock.now().getTime() + 3_600_000).toISOString()
    expect(await found(`${marley}&startDate=${future}`)).toEqual([])
    expect((await found(`${marley}&endDate=${future}`)).length).toBe(2)
  })

  it('returns the same record as Get DETAILED', async () => {
    const { packages } = await list('search=trackingNumber:1Z999&searchPosition=starts')
    expect(packages[0]).toEqual(await a.ok('GET', `/api/v1/packages/${ids.ups}?type=DETAILED`))
  })

  it('refuses anything outside the lists with a 400 naming the field', async () => {
    const cases: Array<[string, string]> = [
      ['', 'search'],
      ['search=color:red', 'search'],
      ['search=trackingNumber', 'search'],
      ['search=trackingNumber:1Z', 'search'],
      ['search=trackingNumber:1Z9&searchPosition=middle', 'searchPosition'],
      ['search=trackingNumber:1Z9&sort=color,ASC', 'sort'],
      ['search=trackingNumber:1Z9&size=201', 'size'],
      ['search=trackingNumber:1Z9&page=0', 'page'],
      ['search=trackingNumber:1Z9&status=LOST', 'status'],
      ['search=trackingNumber:1Z9&startDate=yesterday', 'startDate'],
      ['search=trackingNumber:1Z9&secondTierSearchSelected=perhaps', 'secondTierSearchSelected'],
      ['search=trackingNumber:1Z9&color=red', 'color'],
    ]
    for (const [q, field] of cases) {
      const res = await a.call('GET', `/api/v1/packages?${q}`)
      expect(res.statusCode, q).toBe(400)
      expect(
        res.json().errors.map((e: { additionalParameters: string }) => e.additionalParameters),
        q,
      ).toContain(field)
    }
  })

  it("never returns another subscription's packages", async () => {
    const b = api(t, await t.newClient())
    expect((await b.call('GET', '/api/v1/packages?search=trackingNumber:1Z999')).json()).toEqual({
      packages: [],
      totalCount: 0,
    })
    expect(
      (
        await b.call('GET', `/api/v1/packages?search=trackingNumber:1&searchPosition=starts&location=${m.siteId}`)
      ).json().totalCount,
    ).toBe(0)
    expect((await b.call('POST', '/api/v1/packages/search', {})).json().totalCount).toBe(0)
  })
})

describe('POST /api/v1/packages/search', () => {
  it('maps fields to labels in the mapping\'s order, absent values as ""', async () => {
    const res = await a.ok(
      'POST',
      '/api/v1/packages/search?sort=insertTimestamp,ASC&status=RECEIVED,IN_LOCKER',
      {
        trackingNumber: 'Tracking #',
        'receiver.name': 'Recipient',
        'currentLocation.locationHierarchy': 'Where',
        lockerUnit: 'Unit',
      },
      200,
    )
    expect(res.totalCount).toBe(2)
    expect(res.packages).toEqual([
      {
        'Tracking #': '1Z999AA10123456784',
        Recipient: 'Ada Lovelace',
        Where: expect.stringContaining('| Building A| Shelf 1'),
        Unit: '',
      },
      {
        'Tracking #': 'TBA123456789012',
        Recipient: 'Bob Marley',
        Where: expect.stringContaining('| Building A| Shelf 1'),
        Unit: '4',
      },
    ])
    expect(Object.keys(res.packages[0])).toEqual(['Tracking #', 'Recipient', 'Where', 'Unit'])
  })

  it('returns full records for {} and filters by inboundSiteId', async () => {
    const res = await a.ok(
      'POST',
      `/api/v1/packages/search?inboundSiteId=${m.shelfId}&sort=trackingNumber,ASC`,
      {},
      200,
    )
    expect(res.packages.map((p: { trackingNumber: string }) => p.trackingNumber)).toEqual([
      '1Z999AA10123456784',
      'TBA123456789012',
    ])
    expect(res.packages[0]).toEqual(await a.ok('GET', `/api/v1/packages/${ids.ups}?type=DETAILED`))
  })

  it('refuses unknown fields and duplicate labels, naming them', async () => {
    const unknown = await a.call('POST', '/api/v1/packages/search', {
      trackingNumber: 'A',
      'receiver.shoeSize': 'B',
      colour: 'C',
    })
    expect(unknown.statusCode).toBe(400)
    expect(
      unknown
        .json()
        .errors.map((e: { additionalParameters: string }) => e.additionalParameters)
        .sort(),
    ).toEqual(['colour', 'receiver.shoeSize'])
    const dup = await a.call('POST', '/api/v1/packages/search', { trackingNumber: 'Same', comment: 'Same' })
    expect(dup.statusCode).toBe(400)
    expect(dup.json().errors[0].additionalParameters).toBe('comment')
    expect((await a.call('POST', '/api/v1/packages/search', { trackingNumber: 5 })).statusCode).toBe(400)
  })

  it('streams RFC 4180 CSV with the labels as header, quoting and neutralising formulas', async () => {
    const res = await a.call(
      'POST',
      '/api/v1/packages/search?sort=insertTimestamp,ASC',
      { trackingNumber: 'Tracking, number', comment: 'Note "quoted"', 'receiver.name': 'Recipient' },
      { accept: 'text/csv' },
    )
    expect(res.statusCode).toBe(200)
    expect(res.headers['content-type']).toBe('text/csv; charset=utf-8')
    expect(res.body.split('\r\n')[0]).toBe('"Tracking, number","Note ""quoted""",Recipient')
    const rows = parseCsv(res.body) as string[][]
    expect(rows).toEqual([
      ['Tracking, number', 'Note "quoted"', 'Recipient'],
      ['1Z999AA10123456784', 'Leave at desk', 'Ada Lovelace'],
      ['986578788855', '', 'Bob Marley'],
      ['9400111899223197428490', `'=HYPERLINK("http://evil")`, 'Grace Hopper'],
      ['TBA123456789012', '', 'Bob Marley'],
    ])
  })
})
