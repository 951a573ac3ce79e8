import { sql } from 'kysely'
import { beforeAll, describe, expect, it } from 'vitest'
import { inTransaction } from '../../src/platform/db/transaction.js'
import { useClient, useTestApp, useTestDatabase } from '../support/use-test-app.js'
import { api, PNG_1PX, trackingNumber } from '../support/factories.js'

// Issue 31.4: a deadlock between two processes' transactions on PostgreSQL is retried inside the
// service (bounded), never answered 500, and a retried transaction writes its effects once.
const onPostgres = !!process.env.TEST_DATABASE_URL

/** PostgreSQL's count of deadlocks detected in this database. */
const deadlocksOf = async (db: any) =>
  Number(
    (
      await sql<{
        n: string
      }>`select deadlocks::text as n from pg_stat_database where datname = current_database()`.execute(db)
    ).rows[0]!.n,
  )

/** Waits until some transaction of this database waits for a row lock. */
async function someoneWaitsForALock(db: any): Promise<void> {
  await expect
    .poll(
      async () =>
        Number(
          (
            await sql<{ n: string }>`select count(*)::text as n from pg_stat_activity
              where datname = current_database() and wait_event_type = 'Lock'`.execute(db)
          ).rows[0]!.n,
        ),
      { timeout: 10_000, interval: 20 },
    )
    .toBeGreaterThan(0)
}

describe.runIf(onPostgres)('a deadlock between two transactions (PostgreSQL)', () => {
  const tdb = useTestDatabase({ migrate: false })

  it('runs the victim again whole: both commit, each effect once', async () => {
    const db = tdb.handle.db as any
    await sql`create table probe (id int primary key, n int not null)`.execute(db)
    await sql`create table probe_events (tx text not null)`.execute(db)
    await sql`insert into probe values (1, 0), (2, 0)`.execute(db)
    const runs = { a: 0, b: 0 }
    let arrived = 0
    let bothHoldOne!: () => void
    const barrier = new Promise<void>((resolve) => (bothHoldOne = resolve))
    // Each takes one row, waits until the other holds the other row, then asks for it: a deadlock.
    const lockInOrder = (name: 'a' | 'b', first: number, second: number) =>
      inTransaction(tdb.handle.db, async (trx) => {
        runs[name]++
        await sql`update probe set n = n + 1 where id = ${first}`.execute(trx)
        if (++arrived === 2) bothHoldOne()
        await barrier
        await sql`update probe set n = n + 1 where id = ${second}`.execute(trx)
        await sql`insert into probe_events values (${name})`.execute(trx)
        return name
      })
    const before = await deadlocksOf(db)
    expect(await Promise.all([lockInOrder('a', 1, 2), lockInOrder('b', 2, 1)])).toEqual(['a', 'b'])
    // The statistics are flushed within a second or so.
    await expect.poll(() => deadlocksOf(db), { timeout: 10_000, interval: 200 }).toBe(before + 1)
    // One of them lost the deadlock and ran again; the other ran once.
    expect(runs.a + runs.b).toBe(3)
    const { rows } = await sql<{ id: number; n: number }>`select id, n from probe order by id`.execute(db)
    expect(rows).toEqual([
      { id: 1, n: 2 },
      { id: 2, n: 2 },
    ])
    const events = await sql<{ tx: string }>`select tx from probe_events order by tx`.execute(db)
    expect(events.rows.map((r) => r.tx)).toEqual(['a', 'b'])
  }, 30_000)
})

describe.runIf(onPostgres)('a deadlock between the service and another process (PostgreSQL)', () => {
  const t = useTestApp()
  const me = useClient(t)
  let a: ReturnType<typeof api>
  beforeAll(() => {
    a = api(t, me)
  })

  // The update of a package with an image locks the package's row, then the image's. Another
  // process holds the image and then asks for the package: PostgreSQL aborts the service's
  // transaction (the other sets a longer deadlock_timeout, so the service's side detects it), the
  // service runs it again once the other has committed, and the client gets its 200.
  it('answers 200, with the update written once', async () => {
    const db = t.ctx.db as any
    const { receiverId } = await a.mailroom()
    const packageId = (
      await a.ok('POST', '/api/v1/packages', {
        package: { trackingNumber: trackingNumber(), receiver: { contactId: receiverId } },
      })
    ).packageId as string
    const tempURL = (await a.ok('POST', '/api/v1/packages/images', { base64: PNG_1PX }, 200)).tempURL as string
    const imageId = tempURL.split('/').pop()!
    const before = await deadlocksOf(db)
    let update!: ReturnType<typeof a.call>
    await t.ctx.db.transaction().execute(async (trx) => {
      await sql`set local deadlock_timeout = '20s'`.execute(trx)
      await sql`select 1 from images where image_id = ${imageId} for update`.execute(trx)
      update = a.call('PUT', `/api/v1/packages/${packageId}`, {
        package: { comment: 'with its photo' },
        images: [{ imageLevel: 'ASSET', imageType: 'PHOTO', tempURL }],
      })
      await someoneWaitsForALock(db)
      // Granted once the service's transaction, the deadlock's victim, has rolled back.
      await sql`select 1 from packages where package_id = ${packageId} for update`.execute(trx)
    })
    const res = await update
    expect(res.statusCode, res.body).toBe(200)
    // The statistics are flushed within a second or so.
    await expect.poll(() => deadlocksOf(db), { timeout: 10_000, interval: 200 }).toBe(before + 1)
    const detailed = await a.ok('GET', `/api/v1/packages/${packageId}?type=DETAILED`)
    expect(detailed).toMatchObject({ version: 2, comment: 'with its photo' })
    const count = async (table: 'package_activities' | 'images') =>
      Number(
        (
          await sql<{
            n: string
          }>`select count(*)::text as n from ${sql.table(table)} where package_id = ${packageId}`.execute(db)
        ).rows[0]!.n,
      )
    // The add's activity and the update's, once; the photo attached once.
    expect(await count('package_activities')).toBe(2)
    expect(await count('images')).toBe(1)
  }, 60_000)
})

describe('a transaction PostgreSQL aborted as a deadlock victim (either engine)', () => {
  const tdb = useTestDatabase({ migrate: false })

  it('is run again from the start, and what its first run wrote is gone', async () => {
    const db = tdb.handle.db
    await sql`create table once (tx text not null)`.execute(db)
    let runs = 0
    const answer = await inTransaction(db, async (trx) => {
      await sql`insert into once values (${`run ${++runs}`})`.execute(trx)
      if (runs === 1) throw Object.assign(new Error('deadlock detected'), { code: '40P01' })
      return 'committed'
    })
    expect([answer, runs]).toEqual(['committed', 2])
    const { rows } = await sql<{ tx: string }>`select tx from once`.execute(db)
    expect(rows.map((r) => r.tx)).toEqual(['run 2'])
  })
})
