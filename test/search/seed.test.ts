import { parse as parseCsv } from 'csv-parse/sync'
import { sql } from 'kysely'
import { beforeAll, describe, expect, it } from 'vitest'
import { decodeScan } from '../../src/decode/index.js'
import { seedSubscription } from '../../src/app/seed/seed.js'
import { dpdLabelLine, TRACKING_FORMATS } from '../../src/app/seed/tracking-formats.js'
import { useTestApp } from '../support/use-test-app.js'
import { tallyDrift } from '../support/tallies.js'

/** `mailroom seed`: what it writes, read back through the API as a client of the seeded subscription sees it. */
const t = useTestApp()
let auth: Record<string, string>
let rows: Array<Record<string, string>>

beforeAll(async () => {
  const seeded = await seedSubscription(t.ctx.db, t.ctx.clients, {
    subscription: 'seeded',
    packages: 1500,
    contacts: 300,
    batchSize: 400,
  })
  const { access_token: token } = await t.ctx.tokens.issueToken({
    clientId: seeded.clientId,
    subId: seeded.subId,
    status: 'active',
  })
  auth = { authorization: `Bearer ${token}` }
  const mapping = {
    packageId: 'id',
    trackingNumber: 'tn',
    'carrier.carrierId': 'carrier',
    currentStatus: 'status',
    'sender.name': 'sender',
    'sender.contactId': 'senderId',
    'receiver.name': 'receiver',
    lockerBank: 'bank',
    lockerUnit: 'unit',
    'customFields.Department': 'department',
    'customFields.PO Number': 'po',
    deliveryTime: 'delivered',
  }
  const res = await t.inject({
    method: 'POST',
    url: '/api/v1/packages/search',
    headers: { ...auth, accept: 'text/csv' },
    payload: mapping,
  })
  expect(res.statusCode).toBe(200)
  const [header, ...body] = parseCsv(res.body) as string[][]
  rows = body.map((r) => Object.fromEntries(header!.map((h, i) => [h, r[i]!])))
}, 120_000)

/** Carriers whose seeded format defines no check character. */
const NO_CHECK = new Set([
  'AMAZON',
  'DHL_ECOMMERCE',
  'LASERSHIP',
  'CANPAR',
  'SPEE_DEE',
  'YODEL',
  'YUNEXPRESS',
  'GOFO',
  'LANDMARK',
])

describe('tracking numbers', () => {
  it("has a format for every carrier of the catalogue but mailroom's own", async () => {
    const { rows: catalogue } = await t.ctx.db
      .selectFrom('carriers')
      .select('carrier_id')
      .where('sub_id', 'is', null)
      .execute()
      .then((r) => ({ rows: r }))
    expect(Object.keys(TRACKING_FORMATS).sort()).toEqual(
      catalogue
        .map((c) => c.carrier_id)
        .filter((c) => c !== 'MAILROOM')
        .sort(),
    )
  })

  it('makes numbers that decode to their carrier with a valid check (or none, where the format defines none)', () => {
    let n = 0
    const rand = () => (n = (n * 9301 + 49297) % 233280) / 233280
    for (const [carrier, make] of Object.entries(TRACKING_FORMATS)) {
      for (let i = 0; i < 200; i++) {
        const serial = i * 499_979 + 7
        // DPD's check character covers the whole label line, so the line is what is scanned.
        const scan = carrier === 'DPD' ? dpdLabelLine(rand, serial) : make(rand, serial)
        const decoded = decodeScan(scan)
        const mine = decoded.candidates.find((c) => c.carrierId === carrier)
        expect(mine, `${carrier} ${scan}`).toBeDefined()
        expect(mine!.checkDigitValid, `${carrier} ${scan}`).toBe(NO_CHECK.has(carrier) ? null : true)
        if (carrier === 'DPD') expect(mine!.trackingNumber).toBe(scan.slice(7, 21))
      }
    }
  })

  it('seeds every carrier, each number once', () => {
    expect(rows).toHaveLength(1500)
    expect(new Set(rows.map((r) => r.carrier))).toEqual(new Set(Object.keys(TRACKING_FORMATS)))
    expect(new Set(rows.map((r) => r.tn)).size).toBe(1500)
    for (const r of rows) {
      const decoded = decodeScan(r.tn!)
      expect(
        decoded.candidates.map((c) => c.carrierId),
        `${r.carrier} ${r.tn}`,
      ).toContain(r.carrier)
    }
  })
})

describe('packages', () => {
  it('are tallied for search totals as they were written, and the deltas folded', async () => {
    expect(await tallyDrift(t.ctx.db)).toEqual([])
    expect((await sql`select 1 from package_tally_deltas`.execute(t.ctx.db)).rows).toEqual([])
  })

  it('have senders (SENDER or ALL contacts) on most packages', async () => {
    const withSender = rows.filter((r) => r.sender !== '')
    expect(withSender.length / rows.length).toBeGreaterThan(0.6)
    expect(withSender.length / rows.length).toBeLessThan(0.8)
    const types = new Set<string>()
    for (const id of new Set(withSender.slice(0, 20).map((r) => r.senderId))) {
      types.add((await t.inject({ method: 'GET', url: `/api/v1/contacts/${id}`, headers: auth })).json().contactType)
    }
    expect([...types].every((ty) => ty === 'SENDER' || ty === 'ALL')).toBe(true)
  })

  it('put IN_LOCKER packages in a locker bank and unit, and no others', () => {
    const inLocker = rows.filter((r) => r.status === 'IN_LOCKER')
    expect(inLocker.length).toBeGreaterThan(30)
    for (const r of inLocker) expect([r.bank, r.unit].every((v) => v !== '')).toBe(true)
    for (const r of rows.filter((x) => x.status !== 'IN_LOCKER')) expect([r.bank, r.unit]).toEqual(['', ''])
  })

  it('defines custom fields and fills them on a share of packages', async () => {
    const defs = (await t.inject({ method: 'GET', url: '/api/v1/customfields', headers: auth })).json()
    expect(JSON.stringify(defs)).toContain('Department')
    const departments = rows.filter((r) => r.department !== '')
    expect(departments.length / rows.length).toBeGreaterThan(0.5)
    expect(departments.length / rows.length).toBeLessThan(0.7)
    expect(rows.filter((r) => r.po !== '').every((r) => /^PO-\d{8}$/.test(r.po!))).toBe(true)
    const res = await t.inject({
      method: 'GET',
      url: '/api/v1/packages?search=customFields.Department:engineer&size=200',
      headers: auth,
    })
    expect(res.json().totalCount).toBe(rows.filter((r) => r.department === 'Engineering').length)
  })

  it('delivers what was picked up or delivered, at the time of its last activity', () => {
    for (const r of rows)
      expect(r.delivered !== '', `${r.status}`).toBe(['DELIVERED', 'PICKED_UP', 'ARCHIVED'].includes(r.status!))
  })
})

describe('bulk load', () => {
  const schema = async () => {
    const indexes = await sql<{
      d: string
    }>`select indexdef as d from pg_indexes where tablename in ('packages', 'package_activities') and schemaname = current_schema() order by indexname`.execute(
      t.ctx.db,
    )
    const keys = await sql<{
      d: string
    }>`select conrelid::regclass::text || ' ' || conname || ' ' || pg_get_constraintdef(oid) as d from pg_constraint where conrelid in ('packages'::regclass, 'package_activities'::regclass) order by conname`.execute(
      t.ctx.db,
    )
    // The statistics targets set on index columns (migration 0009) are part of what a rebuild must keep.
    const targets = await sql<{
      d: string
    }>`select attrelid::regclass::text || ' ' || attnum || ' ' || attstattarget as d from pg_attribute
      where attrelid in (select indexrelid from pg_index where indrelid = 'packages'::regclass) and attstattarget > 0 order by 1`.execute(
      t.ctx.db,
    )
    // The search-tally triggers (migration 0010), off for the load only.
    const triggers = await sql<{
      d: string
    }>`select tgname || ' ' || tgenabled::text as d from pg_trigger where tgrelid = 'packages'::regclass and not tgisinternal order by 1`.execute(
      t.ctx.db,
    )
    return {
      indexes: indexes.rows.map((r) => r.d),
      keys: keys.rows.map((r) => r.d),
      targets: targets.rows.map((r) => r.d),
      triggers: triggers.rows.map((r) => r.d),
    }
  }

  it('drops the secondary indexes and foreign keys for the load and builds them all again', async () => {
    const before = await schema()
    expect(before.indexes.length).toBeGreaterThan(20)
    expect(before.keys.length).toBeGreaterThan(6)
    expect(before.targets).toEqual(['packages_id_suffix_idx 2 1000', 'packages_tn_suffix_idx 2 1000'])
    // The report tallies' triggers (migrations 0072, 0074) stay on through a bulk load: they count each row as it comes.
    expect(before.triggers).toEqual([
      'packages_report_delete O',
      'packages_report_insert O',
      'packages_report_update O',
      'packages_tally_delete O',
      'packages_tally_insert O',
      'packages_tally_update O',
    ])
    const phases: string[] = []
    const seeded = await seedSubscription(t.ctx.db, t.ctx.clients, {
      subscription: 'bulk',
      packages: 700,
      contacts: 50,
      batchSize: 300,
      bulk: true,
      onPhase: (p) => phases.push(p),
    })
    expect(phases[0]).toMatch(/^building \d+ indexes, checking \d+ foreign keys$/)
    expect(await schema()).toEqual(before)
    const n = await t.ctx.db
      .selectFrom('packages')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('sub_id', '=', seeded.subId)
      .executeTakeFirstOrThrow()
    expect(Number(n.n)).toBe(700)
    // Counted once at the end of the load, not per batch: right, and nothing left to fold.
    expect(await tallyDrift(t.ctx.db)).toEqual([])
    expect((await sql`select 1 from package_tally_deltas`.execute(t.ctx.db)).rows).toEqual([])
  })

  it('leaves nothing dropped and nothing loaded when the load fails', async () => {
    const before = await schema()
    const failing = seedSubscription(t.ctx.db, t.ctx.clients, {
      subscription: 'bulk-fails',
      packages: 700,
      contacts: 50,
      batchSize: 300,
      bulk: true,
      onProgress: (done) => {
        if (done > 300) throw new Error('disk full')
      },
    })
    await expect(failing).rejects.toThrow('disk full')
    expect(await schema()).toEqual(before)
    const subs = await t.ctx.db
      .selectFrom('packages as p')
      .innerJoin('subscriptions as s', 's.sub_id', 'p.sub_id')
      .select('s.name')
      .where('s.name', '=', 'bulk-fails')
      .execute()
    expect(subs).toEqual([])
  })
})
