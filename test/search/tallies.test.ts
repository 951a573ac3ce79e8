import fc from 'fast-check'
import { sql } from 'kysely'
import { beforeAll, describe, expect, it } from 'vitest'
import { migrateDown, migrateToLatest } from '../../src/platform/db/migrate.js'
import { countQuery } from '../../src/search/store/search.js'
import { tallyCountQuery } from '../../src/search/store/tallies.js'
import { parseStatuses, type ListFilter } from '../../src/search/model/parse.js'
import { foldTallies } from '../../src/search/model/tallies.js'
import { useTestApp, useClient } from '../support/use-test-app.js'
import { api, trackingNumber } from '../support/factories.js'
import { tallyDrift } from '../support/tallies.js'

// Search totals from the tallies (migration 0010) must be the totals counting gives, whatever
// happened to the packages: the tallies are kept by triggers, and read with their unfolded deltas.

const t = useTestApp()
const me = useClient(t)
let a: ReturnType<typeof api>
let m: Awaited<ReturnType<ReturnType<typeof api>['mailroom']>>
let people: string[]
let sites: Array<string | undefined>
const packages: string[] = []

beforeAll(async () => {
  a = api(t, me)
  m = await a.mailroom()
  people = [m.receiverId, m.allId, await a.contact('RECEIVER', 'Adam Smithson'), await a.contact('ALL', 'Ada Byron')]
  sites = [undefined, m.siteId, m.buildingId, m.shelfId]
  // Another subscription with the same names, sites and statuses: none of it may count for us.
  const b = api(t, await t.newClient())
  const theirs = await b.mailroom()
  for (const status of ['RECEIVED', 'READY_FOR_PICKUP', 'DELIVERED']) {
    await b.ok('POST', '/api/v1/packages', {
      package: {
        trackingNumber: trackingNumber(),
        receiver: { contactId: theirs.receiverId },
        sender: { contactId: theirs.senderId },
      },
      lastActivity: { status, location: { inboundSiteId: theirs.shelfId } },
    })
  }
})

const STATUSES = [
  'RECEIVED',
  'IN_TRANSIT',
  'READY_FOR_PICKUP',
  'DAMAGED',
  'DELIVERED',
  'PICKED_UP',
  'RETURNED_TO_SENDER',
] as const

type Op =
  | { kind: 'add'; receiver: number; sender: boolean; site: number; status: number }
  | { kind: 'update'; which: number; receiver?: number; site?: number; status?: number }
  | { kind: 'archive'; which: number; archived: boolean }
  | { kind: 'touch'; which: number }
  | { kind: 'fold' }

const op: fc.Arbitrary<Op> = fc.oneof(
  fc.record({
    kind: fc.constant('add' as const),
    receiver: fc.nat(3),
    sender: fc.boolean(),
    site: fc.nat(3),
    status: fc.nat(STATUSES.length - 1),
  }),
  fc.record({
    kind: fc.constant('update' as const),
    which: fc.nat(),
    receiver: fc.option(fc.nat(3), { nil: undefined }),
    site: fc.option(fc.nat(3), { nil: undefined }),
    status: fc.option(fc.nat(STATUSES.length - 1), { nil: undefined }),
  }),
  fc.record({ kind: fc.constant('archive' as const), which: fc.nat(), archived: fc.boolean() }),
  fc.record({ kind: fc.constant('touch' as const), which: fc.nat() }),
  fc.constant({ kind: 'fold' as const }),
)

async function apply(o: Op) {
  const pick = (which: number) => packages[which % packages.length]!
  switch (o.kind) {
    case 'add': {
      const site = sites[o.site]
      const body = {
        package: {
          trackingNumber: trackingNumber('TALLY'),
          receiver: { contactId: people[o.receiver] },
          ...(o.sender ? { sender: { contactId: m.senderId } } : {}),
        },
        lastActivity: { status: STATUSES[o.status], location: site ? { inboundSiteId: site } : {} },
      }
      const res = await a.call('POST', '/api/v1/packages', body)
      // A package without a site, when the subscription has a primary one, lands there; either way it is written.
      expect(res.statusCode, res.body).toBe(201)
      packages.push(res.json().packageId)
      return
    }
    case 'update': {
      if (!packages.length) return
      const site = o.site === undefined ? undefined : sites[o.site]
      const res = await a.call('PUT', `/api/v1/packages/${pick(o.which)}`, {
        package: { ...(o.receiver !== undefined ? { receiver: { contactId: people[o.receiver] } } : {}) },
        ...(o.status !== undefined
          ? { lastActivity: { status: STATUSES[o.status], location: site ? { inboundSiteId: site } : {} } }
          : {}),
      })
      // An archived package refuses updates (409); that changes nothing, which is the point too.
      expect([200, 409], res.body).toContain(res.statusCode)
      return
    }
    case 'archive':
      if (packages.length) await a.ok('PATCH', `/api/v1/packages/${pick(o.which)}/archive`, { archived: o.archived })
      return
    case 'touch':
      // A change outside the service, as the webhook jobs make: the tallies follow any writer.
      if (packages.length)
        await sql`update packages set event_count = event_count + 1 where package_id = ${pick(o.which)}`.execute(
          t.ctx.db,
        )
      return
    case 'fold':
      await foldTallies(t.ctx.db)
  }
}

describe('search tallies', () => {
  it('stay equal to counting the packages through adds, updates, archives, un-archives, other writers and folds', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(op, { minLength: 1, maxLength: 12 }), async (ops) => {
        for (const o of ops) await apply(o)
        expect(await tallyDrift(t.ctx.db)).toEqual([])
      }),
      { numRuns: 25 },
    )
  })

  it('answer every filter they hold with the total counting gives, and the service answers with it', async () => {
    for (let i = 0; i < 20; i++)
      await apply({ kind: 'add', receiver: i % 4, sender: i % 3 === 0, site: i % 4, status: i % STATUSES.length })
    const filters: Array<[string, ListFilter]> = []
    const base: ListFilter = { secondTier: false, includeEmptyPackageLocation: false }
    for (const statuses of [
      undefined,
      ['READY_FOR_PICKUP'],
      parseStatuses('UNDELIVERED', []),
      parseStatuses('DELIVERED,PICKED_UP', []),
    ]) {
      const s = statuses ? `&status=${statuses.join(',')}` : ''
      for (const [field, value, position] of [
        ['receiver.name', 'ada', 'contains'],
        ['receiver.name', 'ADA', 'starts'],
        ['receiver.name', 'son', 'ends'],
        ['sender.name', 'acme', 'contains'],
        ['givenTo.name', 'love', 'contains'],
        ['receiver.name', 'nobody', 'contains'],
      ] as const) {
        filters.push([
          `search=${field}:${value}${position === 'contains' ? '' : `&searchPosition=${position}`}${s}`,
          { ...base, statuses, search: { field, value, position } },
        ])
      }
      for (const site of sites)
        filters.push([
          `search=trackingNumber:TALLY&searchPosition=starts${site ? `&location=${site}` : ''}${s}`,
          { ...base, statuses, siteId: site },
        ])
    }
    let checked = 0
    for (const [query, filter] of filters) {
      const tallied = tallyCountQuery(t.ctx.db, me.subId, filter)
      const exact = Number((await countQuery(t.ctx.db, me.subId, filter).executeTakeFirstOrThrow()).n)
      if (!filter.search) {
        // No search term: the custom search (a listing) takes its total from the tallies.
        expect(tallied).toBeDefined()
        expect(Number((await tallied!.execute(t.ctx.db)).rows[0]!.n), query).toBe(exact)
        const site = filter.siteId ? `&inboundSiteId=${filter.siteId}` : ''
        const res = await a.ok(
          'POST',
          `/api/v1/packages/search?size=1${site}${filter.statuses ? `&status=${filter.statuses.join(',')}` : ''}`,
          {},
          200,
        )
        expect(res.totalCount, query).toBe(exact)
        checked++
        continue
      }
      expect(tallied, query).toBeDefined()
      expect(Number((await tallied!.execute(t.ctx.db)).rows[0]!.n), query).toBe(exact)
      expect((await a.ok('GET', `/api/v1/packages?${query}&size=1`)).totalCount, query).toBe(exact)
      checked++
    }
    expect(checked).toBe(filters.length)
    // Folded or not, the same totals.
    await foldTallies(t.ctx.db)
    expect(await sql`select 1 from package_tally_deltas`.execute(t.ctx.db).then((r) => r.rows)).toEqual([])
    for (const [query, filter] of filters) {
      const exact = Number((await countQuery(t.ctx.db, me.subId, filter).executeTakeFirstOrThrow()).n)
      expect(Number((await tallyCountQuery(t.ctx.db, me.subId, filter)!.execute(t.ctx.db)).rows[0]!.n), query).toBe(
        exact,
      )
    }
  })

  it('lose nothing when two folds run at once (two processes): each delta is folded once', async () => {
    for (let i = 0; i < 12; i++)
      await apply({ kind: 'add', receiver: i % 4, sender: true, site: i % 4, status: i % STATUSES.length })
    const folded = await Promise.all([foldTallies(t.ctx.db, 3), foldTallies(t.ctx.db, 3)])
    expect(folded[0] + folded[1]).toBeGreaterThan(0)
    expect((await sql`select 1 from package_tally_deltas`.execute(t.ctx.db)).rows).toEqual([])
    expect(await tallyDrift(t.ctx.db)).toEqual([])
  })

  it('leave to counting what they do not hold: dates, second tier, other fields, a name search within a site', () => {
    const base: ListFilter = { secondTier: false, includeEmptyPackageLocation: false }
    const name = { field: 'receiver.name', value: 'ada', position: 'contains' } as const
    expect(tallyCountQuery(t.ctx.db, me.subId, { ...base, search: name, startDate: new Date() })).toBeUndefined()
    expect(tallyCountQuery(t.ctx.db, me.subId, { ...base, search: name, secondTier: true })).toBeUndefined()
    expect(tallyCountQuery(t.ctx.db, me.subId, { ...base, search: name, siteId: m.siteId })).toBeUndefined()
    expect(
      tallyCountQuery(t.ctx.db, me.subId, {
        ...base,
        search: { field: 'comment', value: 'box', position: 'contains' },
      }),
    ).toBeUndefined()
    expect(tallyCountQuery(t.ctx.db, me.subId, { ...base, endDate: new Date() })).toBeUndefined()
  })

  it('are counted afresh from the packages when the migration runs on a database that has them', async () => {
    // Down to before 0010, whatever later migrations there are, then up again.
    const down: string[] = []
    while (!down.includes('Down 0010_package_tallies')) down.push(...(await migrateDown(t.ctx.db)))
    expect(await migrateToLatest(t.ctx.db)).toEqual(down.map((d) => d.replace('Down', 'Up')).reverse())
    expect(await tallyDrift(t.ctx.db)).toEqual([])
    const { rows } = await sql<{
      n: string
    }>`select count(*) as n from package_tallies where sub_id = ${me.subId}`.execute(t.ctx.db)
    expect(Number(rows[0]!.n)).toBeGreaterThan(0)
  })
})
