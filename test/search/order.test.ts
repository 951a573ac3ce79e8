import { parse as parseCsv } from 'csv-parse/sync'
import { beforeAll, describe, expect, it } from 'vitest'
import { DIRECT_CELLS } from '../../src/search/model/export.js'
import { csvCell, isMappable, type Cell } from '../../src/search/model/mapping.js'
import { searchAll } from '../../src/search/store/search.js'
import { SORT_FIELDS, type SortField } from '../../src/search/model/parse.js'
import { useTestApp, useClient } from '../support/use-test-app.js'
import { api } from '../support/factories.js'

/**
 * Every sort order, in JSON pages and in the CSV export: the same rows in the same order, ties
 * broken by packageId, packages without the key last. The data has ties on every key (packages
 * added in the same millisecond, two contacts of one name, several statuses) and nulls (packages
 * without a receiver or a delivery time).
 */
const t = useTestApp()
const me = useClient(t)
let a: ReturnType<typeof api>
type Rec = {
  packageId: string
  trackingNumber: string
  currentStatus: string
  insertTimestamp: string
  updateTimestamp: string
  deliveryTime?: string
  receiver?: { name: string }
}
let records: Rec[] = []

beforeAll(async () => {
  a = api(t, me)
  const m = await a.mailroom()
  const sam = await a.contact('RECEIVER', 'Sam Lee', {
    company: 'Initech',
    email: 'sam@initech.example',
    phone: '+1 555 0100',
    personalId: 'E-1',
    location: { inboundSiteId: m.buildingId },
    mailStopLocation: { inboundSiteId: m.shelfId },
  })
  const receivers = [
    sam,
    await a.contact('RECEIVER', 'sam lee'),
    await a.contact('RECEIVER', 'Zoe Adams'),
    m.receiverId,
    undefined,
  ]
  const field = (await a.ok('POST', '/api/v1/customfields', { name: 'Cost Center', dataType: 'TEXT' })).customFieldId
  const statuses = ['DELIVERED', 'PICKED_UP', 'READY_FOR_PICKUP', 'RECEIVED', 'RECEIVED', 'IN_LOCKER']
  const ids: string[] = []
  for (let i = 0; i < 23; i++) {
    const receiver = receivers[i % receivers.length]
    const status = receiver ? statuses[i % statuses.length]! : 'RECEIVED'
    const body = await a.ok('POST', '/api/v1/packages', {
      package: {
        trackingNumber: `ORD${String((i * 7) % 23).padStart(3, '0')}X`,
        ...(receiver ? { receiver: { contactId: receiver } } : {}),
        ...(i % 2
          ? {
              sender: { contactId: m.senderId },
              carrier: { carrierId: 'UPS' },
              customFields: [{ customFieldId: field, value: `=CC-${i}` }],
            }
          : {}),
        ...(i % 5 === 1 ? { flags: ['PERISHABLE', 'FRAGILE'] } : {}),
      },
      lastActivity: {
        status,
        location: {
          inboundSiteId: m.shelfId,
          ...(status === 'IN_LOCKER' ? { lockerBank: 'North', lockerUnit: String(i) } : {}),
        },
      },
    })
    ids.push(body.packageId)
    // Every third package shares its millisecond with the one before: ties on the timestamps.
    if (i % 3 !== 0) t.clock.advance(1000)
  }
  // Updates in another order, so updateTimestamp differs from insertTimestamp.
  for (const i of [4, 0, 17, 9]) {
    await a.ok('PUT', `/api/v1/packages/${ids[i]}`, { package: { comment: `updated ${i}` } })
    t.clock.advance(500)
  }
  records = (await a.ok('POST', '/api/v1/packages/search?size=200', {}, 200)).packages
  expect(records).toHaveLength(23)
})

const KEY: Record<SortField, (r: Rec) => string | undefined> = {
  insertTimestamp: (r) => r.insertTimestamp,
  updateTimestamp: (r) => r.updateTimestamp,
  trackingNumber: (r) => r.trackingNumber,
  currentStatus: (r) => r.currentStatus,
  deliveryTime: (r) => r.deliveryTime,
  'receiver.name': (r) => r.receiver?.name.toLowerCase(),
}

/** The documented order, computed from the records: key, then packageId, both in the direction; no key last. */
function expected(field: SortField, desc: boolean): string[] {
  const cmp = (x: string, y: string) => (x < y ? -1 : x > y ? 1 : 0)
  return [...records]
    .sort((r, s) => {
      const [k, l] = [KEY[field](r), KEY[field](s)]
      if (k === undefined || l === undefined)
        return k === l ? (desc ? -1 : 1) * cmp(r.packageId, s.packageId) : k === undefined ? 1 : -1
      return (desc ? -1 : 1) * (cmp(k, l) || cmp(r.packageId, s.packageId))
    })
    .map((r) => r.packageId)
}

async function jsonPages(sort: string, size: number): Promise<string[]> {
  const out: string[] = []
  for (let page = 1; ; page++) {
    const res = await a.ok(
      'POST',
      `/api/v1/packages/search?sort=${sort}&size=${size}&page=${page}`,
      { packageId: 'id' },
      200,
    )
    expect(res.totalCount).toBe(23)
    out.push(...res.packages.map((p: { id: string }) => p.id))
    if (res.packages.length < size) return out
  }
}

async function csvIds(query: string): Promise<string[]> {
  const res = await a.call('POST', `/api/v1/packages/search?${query}`, { packageId: 'id' }, { accept: 'text/csv' })
  expect(res.statusCode).toBe(200)
  const rows = parseCsv(res.body) as string[][]
  expect(rows[0]).toEqual(['id'])
  return rows.slice(1).map((r) => r[0]!)
}

describe('sort orders', () => {
  for (const field of SORT_FIELDS) {
    for (const desc of [false, true]) {
      const sort = `${field},${desc ? 'DESC' : 'ASC'}`
      it(`${sort}: JSON pages and the CSV export give the same rows in the documented order`, async () => {
        const want = expected(field, desc)
        expect(await jsonPages(sort, 4)).toEqual(want)
        expect(await jsonPages(sort, 200)).toEqual(want)
        expect(await csvIds(`sort=${sort}`)).toEqual(want)
        // A CSV page is the JSON page.
        expect(await csvIds(`sort=${sort}&page=2&size=5`)).toEqual(want.slice(5, 10))
        // Export batches continue after each other across ties and into the rows without a key.
        for (const batch of [1, 2, 5]) {
          const got: string[] = []
          for await (const ids of searchAll(
            t.ctx.db,
            me.subId,
            { secondTier: false, includeEmptyPackageLocation: false },
            { field, desc },
            batch,
          ))
            got.push(...ids)
          expect(got, `batches of ${batch}`).toEqual(want)
        }
      })
    }
  }

  it('has ties and missing keys to break', () => {
    expect(new Set(records.map((r) => r.insertTimestamp)).size).toBeLessThan(records.length)
    expect(records.some((r) => !r.receiver)).toBe(true)
    expect(records.some((r) => !r.deliveryTime)).toBe(true)
    expect(new Set(records.map((r) => r.deliveryTime).filter(Boolean)).size).toBeLessThan(
      records.filter((r) => r.deliveryTime).length,
    )
  })
})

describe("the export's read model", () => {
  it('renders every field as the JSON does', async () => {
    const paths = [
      'packageId',
      'trackingNumber',
      'subId',
      'assetType',
      'carrier',
      'carrier.name',
      'currentStatus',
      'damaged',
      'archived',
      'timezone',
      'sender.name',
      'sender.company',
      'receiver',
      'receiver.email',
      'receiver.phone',
      'receiver.personalId',
      'receiver.location.locationHierarchy',
      'receiver.mailStopLocation.topTier.name',
      'givenTo.name',
      'comment',
      'customFields',
      'customFields.Cost Center',
      'currentLocation',
      'currentLocation.ancestorlist',
      'packageLocation',
      'lockerBank',
      'lockerUnit',
      'userName',
      'receiveClerk',
      'deliveryClerk',
      'deliveryTime',
      'currentRoute',
      'locationZip',
      'insertTimestamp',
      'updateTimestamp',
      'version',
    ]
    const mapping = Object.fromEntries(paths.map((p) => [p, p]))
    const json = (await a.ok('POST', '/api/v1/packages/search?size=200&sort=trackingNumber,ASC', mapping, 200))
      .packages as Array<Record<string, Cell>>
    // Without page or size the export streams every row through its own read model.
    const res = await a.call('POST', '/api/v1/packages/search?sort=trackingNumber,ASC', mapping, { accept: 'text/csv' })
    const [header, ...rows] = parseCsv(res.body) as string[][]
    expect(header).toEqual(paths)
    expect(rows).toEqual(json.map((r) => paths.map((p) => csvCell(r[p]!))))
    expect(rows.some((r) => r[paths.indexOf('receiver.location.locationHierarchy')] !== '')).toBe(true)
    expect(rows.some((r) => r[paths.indexOf('customFields.Cost Center')]!.startsWith(`'=CC-`))).toBe(true)
  })

  it('reads the common columns straight from the row, as the record would render them', async () => {
    const paths = Object.keys(DIRECT_CELLS)
    expect(paths.length).toBeGreaterThan(40)
    for (const p of paths) expect(isMappable(p), p).toBe(true)
    const mapping = Object.fromEntries(paths.map((p) => [p, p]))
    const json = (await a.ok('POST', '/api/v1/packages/search?size=200&sort=deliveryTime,DESC', mapping, 200))
      .packages as Array<Record<string, Cell>>
    const res = await a.call('POST', '/api/v1/packages/search?sort=deliveryTime,DESC', mapping, { accept: 'text/csv' })
    const [header, ...rows] = parseCsv(res.body) as string[][]
    expect(header).toEqual(paths)
    expect(rows).toEqual(json.map((r) => paths.map((p) => csvCell(r[p]!))))
    // Every column holds a value somewhere, so each accessor was compared on something.
    for (const [i, p] of paths.entries())
      if (
        ![
          'timezone',
          'comment',
          'confirmationType',
          'additionalConfirmationType',
          'packageLocation',
          'givenTo.company',
          'givenTo.phone',
          'givenTo.personalId',
          'sender.company',
          'sender.email',
          'sender.phone',
          'sender.personalId',
        ].includes(p)
      )
        expect(
          rows.some((r) => r[i] !== ''),
          p,
        ).toBe(true)
  })

  it('reads each common column alone from just the table columns it declares', async () => {
    // Alone, an export selects only the columns its cells read: a cell that reads one it did not
    // declare would come out empty here, where the JSON has a value.
    for (const p of Object.keys(DIRECT_CELLS)) {
      const json = (await a.ok('POST', '/api/v1/packages/search?size=200&sort=trackingNumber,ASC', { [p]: p }, 200))
        .packages as Array<Record<string, Cell>>
      const res = await a.call(
        'POST',
        '/api/v1/packages/search?sort=trackingNumber,ASC',
        { [p]: p },
        { accept: 'text/csv' },
      )
      const [, ...rows] = parseCsv(res.body) as string[][]
      expect(rows, p).toEqual(json.map((r) => [csvCell(r[p]!)]))
    }
  })
})

describe('columns', () => {
  const mapping = { trackingNumber: 'b', comment: '2', currentStatus: '1', 'receiver.name': 'a', lockerUnit: '10' }

  it("keeps the mapping's order in JSON, integer-like labels included", async () => {
    const res = await a.call('POST', '/api/v1/packages/search?sort=trackingNumber,ASC&size=3', mapping)
    expect(res.statusCode).toBe(200)
    expect(res.headers['content-type']).toMatch(/^application\/json/)
    const first = res.body.slice(res.body.indexOf('[{') + 1, res.body.indexOf('}') + 1)
    expect([...first.matchAll(/"([^"]*)":/g)].map((m) => m[1])).toEqual(['b', '2', '1', 'a', '10'])
    const body = res.json()
    expect(body.totalCount).toBe(23)
    expect(body.packages[0]).toEqual({ b: 'ORD000X', 2: 'updated 0', 1: 'DELIVERED', a: 'Sam Lee', 10: '' })
  })

  it('keeps it in the CSV header and rows', async () => {
    const res = await a.call('POST', '/api/v1/packages/search?sort=trackingNumber,ASC&size=3', mapping, {
      accept: 'text/csv',
    })
    const rows = parseCsv(res.body) as string[][]
    expect(rows[0]).toEqual(['b', '2', '1', 'a', '10'])
    expect(rows[1]).toEqual(['ORD000X', 'updated 0', 'DELIVERED', 'Sam Lee', ''])
  })

  it('neutralises header labels a spreadsheet would run as formulas', async () => {
    const labels = {
      trackingNumber: '=HYPERLINK("http://evil")',
      comment: '+1',
      currentStatus: '-2',
      damaged: '@SUM(A1)',
      lockerBank: '\tTab',
    }
    const res = await a.call('POST', '/api/v1/packages/search?size=1', labels, { accept: 'text/csv' })
    expect(res.statusCode).toBe(200)
    expect((parseCsv(res.body) as string[][])[0]).toEqual([
      `'=HYPERLINK("http://evil")`,
      `'+1`,
      `'-2`,
      `'@SUM(A1)`,
      `'\tTab`,
    ])
    // JSON keys are data, not cells: they stay as given.
    expect(Object.keys((await a.ok('POST', '/api/v1/packages/search?size=1', labels, 200)).packages[0])).toEqual(
      Object.values(labels),
    )
  })

  it('escapes labels and values in the hand-written JSON', async () => {
    const res = await a.call('POST', '/api/v1/packages/search?sort=trackingNumber,ASC&size=1', {
      trackingNumber: 'quote " back \\ nl \n',
      damaged: 'd',
      customFields: 'cf',
      currentLocation: 'where',
    })
    const row = res.json().packages[0]
    expect(row['quote " back \\ nl \n']).toBe('ORD000X')
    expect(row.d).toBe(false)
    expect(row.cf).toEqual([])
    expect(row.where).toMatchObject({ name: 'Shelf 1' })
  })
})
