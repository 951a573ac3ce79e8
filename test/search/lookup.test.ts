import { beforeAll, describe, expect, it } from 'vitest'
import { asTrackingLookup, LOOKUP_MAX_MATCHES, trackingLookupPages } from '../../src/search/store/lookup.js'
import { searchIds } from '../../src/search/store/search.js'
import type { ListFilter, Sort } from '../../src/search/model/parse.js'
import { useTestApp, useClient } from '../support/use-test-app.js'
import { api } from '../support/factories.js'

// Tracking-number lookups (starts / ends, newest first, first page) of concurrent requests are
// gathered into one statement: each must answer exactly what the ordinary page query answers.

const t = useTestApp()
const me = useClient(t)
let a: ReturnType<typeof api>
let them: ReturnType<typeof api>
const newest: Sort = { field: 'insertTimestamp', desc: true }
const base: ListFilter = { secondTier: false, includeEmptyPackageLocation: false }

// Shared prefixes and suffixes, numbers that end where others start, LIKE's own wildcards, and
// one prefix common enough (COMMON…) to be left to the page query.
const NUMBERS = [
  ...Array.from({ length: 12 }, (_, i) => `LKA${String(1000 + i)}9876`),
  ...Array.from({ length: 6 }, (_, i) => `LKB${i}${i}5566`),
  'LK%ABC',
  'LK_ABC',
  'LKXABC',
  '9876LKA',
  'ZZ12345',
  'ZZ12346',
  'A12345',
  ...Array.from({ length: LOOKUP_MAX_MATCHES + 5 }, (_, i) => `COMMON${String(i).padStart(5, '0')}`),
]

beforeAll(async () => {
  a = api(t, me)
  them = api(t, await t.newClient())
  for (let i = 0; i < NUMBERS.length; i += 10) {
    await Promise.all(
      NUMBERS.slice(i, i + 10).map((n) => a.ok('POST', '/api/v1/packages', { package: { trackingNumber: n } })),
    )
    t.clock.advance(1000)
  }
  // Archive a couple: archived packages are found as before.
  const archived = (await a.ok('GET', '/api/v1/packages?search=trackingNumber:LKA1000&searchPosition=starts'))
    .packages[0].packageId
  await a.ok('PATCH', `/api/v1/packages/${archived}/archive`, { archived: true })
  // Another subscription holds some of the same numbers.
  for (const n of ['LKA10009876', 'ZZ12345', 'LK%ABC'])
    await them.ok('POST', '/api/v1/packages', { package: { trackingNumber: n } })
}, 60_000)

const LOOKUPS: Array<['starts' | 'ends', string]> = [
  ['starts', 'LKA'],
  ['starts', 'LKA100'],
  ['starts', 'lka1003'],
  ['starts', 'LKB'],
  ['starts', 'LK%'],
  ['starts', 'LK_'],
  ['starts', 'ZZ1234'],
  ['starts', 'Z'],
  ['starts', 'NOPE'],
  ['starts', 'COMMON'],
  ['starts', 'COMMON0001'],
  ['starts', 'lk a 1 0 0 5'],
  ['ends', '9876'],
  ['ends', '5566'],
  ['ends', '45'],
  ['ends', 'ABC'],
  ['ends', '%ABC'],
  ['ends', '_ABC'],
  ['ends', 'LKA'],
  ['ends', '00000'],
  ['ends', 'NOPE'],
  ['ends', '0'],
  ['ends', 'ÄBC'],
]

const pageOf = (position: 'starts' | 'ends', value: string): ListFilter => ({
  ...base,
  search: { field: 'trackingNumber', value, position },
})

describe('tracking-number lookups, gathered', () => {
  it('answer each lookup of a statement exactly as the page query does, whatever else is in it', async () => {
    for (const position of ['starts', 'ends'] as const) {
      for (const size of [1, 5, 25]) {
        const values = LOOKUPS.filter(([p]) => p === position)
          .map(([, v]) => v)
          .map((v) => asTrackingLookup(pageOf(position, v), newest, 0, size)?.value)
          .filter((v): v is string => v !== undefined)
        const pages = await trackingLookupPages(t.ctx.db, me.subId, position, size, values)
        for (const v of values) {
          const expected = await searchIds(t.ctx.db, me.subId, pageOf(position, v), newest, 0, size)
          const got = pages.get(v)
          if (got === undefined)
            expect(expected.length, `${position} ${v}: left to the page query only when common`).toBe(size)
          else expect(got, `${position} ${v} size ${size}`).toEqual(expected)
        }
      }
    }
  })

  it('leave a value with more matches than they read to the page query', async () => {
    const pages = await trackingLookupPages(t.ctx.db, me.subId, 'starts', 25, ['COMMON', 'COMMON0001'])
    expect(pages.get('COMMON')).toBeUndefined()
    expect(pages.get('COMMON0001')).toHaveLength(10)
  })

  it('are lookups only for the first page of a starts / ends search, newest first, with nothing else', () => {
    const f = pageOf('ends', '9876')
    expect(asTrackingLookup(f, newest, 0, 25)).toEqual({ position: 'ends', value: '9876', limit: 25 })
    expect(asTrackingLookup(pageOf('starts', 'lk a1'), newest, 0, 25)).toEqual({
      position: 'starts',
      value: 'LKA1',
      limit: 25,
    })
    expect(asTrackingLookup(f, newest, 25, 25)).toBeUndefined()
    expect(asTrackingLookup(f, { field: 'insertTimestamp', desc: false }, 0, 25)).toBeUndefined()
    expect(asTrackingLookup(f, { field: 'trackingNumber', desc: true }, 0, 25)).toBeUndefined()
    expect(asTrackingLookup({ ...f, statuses: ['RECEIVED'] }, newest, 0, 25)).toBeUndefined()
    expect(asTrackingLookup({ ...f, siteId: 'site_x' }, newest, 0, 25)).toBeUndefined()
    expect(asTrackingLookup({ ...f, startDate: new Date() }, newest, 0, 25)).toBeUndefined()
    expect(
      asTrackingLookup(
        { ...base, search: { field: 'trackingNumber', value: '9876', position: 'contains' } },
        newest,
        0,
        25,
      ),
    ).toBeUndefined()
    expect(
      asTrackingLookup({ ...base, search: { field: 'packageId', value: 'pkg_1', position: 'starts' } }, newest, 0, 25),
    ).toBeUndefined()
    expect(asTrackingLookup(pageOf('ends', 'ÄBC'), newest, 0, 25)).toBeUndefined()
  })

  it('over HTTP, concurrent lookups of two subscriptions each get their own page and total', async () => {
    const requests = [
      ...LOOKUPS.map(([position, value]) => ({ who: a, position, value })),
      ...(['LKA1000', 'ZZ', 'LK%'] as const).map((value) => ({ who: them, position: 'starts' as const, value })),
    ]
    const results = await Promise.all(
      requests.map((r) =>
        r.who.call(
          'GET',
          `/api/v1/packages?search=trackingNumber:${encodeURIComponent(r.value)}&searchPosition=${r.position}&size=5`,
        ),
      ),
    )
    for (const [i, r] of requests.entries()) {
      const res = results[i]!
      expect(res.statusCode, res.body).toBe(200)
      const sub = r.who === a ? me.subId : (await them.ok('GET', '/api/v1/session')).subId
      const filter = pageOf(r.position, r.value)
      const expected = await searchIds(t.ctx.db, sub, filter, newest, 0, 5)
      const body = res.json<{ packages: Array<{ packageId: string; subId: string }>; totalCount: number }>()
      expect(
        body.packages.map((p) => p.packageId),
        `${r.position} ${r.value}`,
      ).toEqual(expected)
      expect(body.packages.every((p) => p.subId === sub)).toBe(true)
      const all = await searchIds(t.ctx.db, sub, filter, newest, 0, 1000)
      expect(body.totalCount, `${r.position} ${r.value}`).toBe(all.length)
    }
  })
})
