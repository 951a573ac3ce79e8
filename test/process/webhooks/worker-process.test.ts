import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { loadConfig } from '../../../src/app/config.js'
import { openDatabase, type DatabaseHandle } from '../../../src/platform/db/database.js'
import { migrateToLatest } from '../../../src/platform/db/migrate.js'
import { inTransaction } from '../../../src/platform/db/transaction.js'
import { systemClock } from '../../../src/platform/kit/clock.js'
import { deriveKey } from '../../../src/platform/kit/crypto.js'
import { defaultIds } from '../../../src/platform/kit/ids.js'
import { enqueueEvents } from '../../../src/events/outbox.js'
import { createWebhooks } from '../../../src/webhooks/module.js'
import { TEST_SECRET } from '../../support/build-test-app.js'
import { createTestDatabase } from '../../support/test-db.js'
import { configBody } from '../../webhooks/support/helpers.js'
import { Receiver } from '../../webhooks/support/receiver.js'
import { startWorker, type WorkerProcess } from '../../webhooks/support/worker-process.js'

// Real `mailroom worker` processes on a real database (on-disk PGlite, or PostgreSQL when
// TEST_DATABASE_URL is set) and the system clock: a worker killed mid-send loses nothing.
const ENV_BASE = {
  MAILROOM_ENV: 'development',
  MAILROOM_SECRET: TEST_SECRET,
  MAILROOM_WEBHOOK_ALLOW_HTTP: 'true',
  MAILROOM_WEBHOOK_ALLOW_CIDRS: '127.0.0.0/8',
  LOCKER_PICKUP_REMINDER_HOURS: '720',
}
let dataDir: string
let env: Record<string, string>
let dropDb: (() => Promise<void>) | undefined
let rx: Receiver
const running: WorkerProcess[] = []

/** The database as the workers see it; on PGlite only one process may hold it, so it is opened per use. */
async function withDb<T>(work: (db: DatabaseHandle['db']) => Promise<T>): Promise<T> {
  const handle = env.DATABASE_URL
    ? await openDatabase({ kind: 'postgres', url: env.DATABASE_URL, poolSize: 2 })
    : await openDatabase({ kind: 'pglite', dir: path.join(dataDir, 'pglite') })
  try {
    return await work(handle.db)
  } finally {
    await handle.close()
  }
}

beforeAll(async () => {
  dataDir = mkdtempSync(path.join(tmpdir(), 'mailroom-worker-'))
  env = { ...ENV_BASE, MAILROOM_DATA_DIR: dataDir }
  if (process.env.TEST_DATABASE_URL) {
    const db = await createTestDatabase({ migrate: false })
    await db.handle.close()
    env.DATABASE_URL = db.url!
    dropDb = () => db.drop()
  }
  await withDb((db) => migrateToLatest(db))
  rx = await new Receiver().start()
})
afterAll(async () => {
  for (const w of running) await w.stop('SIGKILL')
  await rx.close()
  await dropDb?.()
  rmSync(dataDir, { recursive: true, force: true })
})

/** A subscription with one configuration and `events` outbox events. */
async function seed(
  subName: string,
  events: number,
  timeOut: number,
): Promise<{ configId: string; secret: string; eventIds: string[] }> {
  return withDb(async (db) => {
    const subId = `sub_${subName}`
    await db.insertInto('subscriptions').values({ sub_id: subId, name: subName }).execute()
    const config = loadConfig({ ...env, LOG_LEVEL: 'silent' })
    const webhooks = createWebhooks({
      db,
      clock: systemClock,
      ids: defaultIds,
      config,
      sealKey: deriveKey(TEST_SECRET, 'webhook-credential-seal'),
    })
    const cfg = await webhooks.configs.create(
      subId,
      'tracking',
      configBody(rx.url(`/${subName}`), { timeOut }) as never,
    )
    const eventIds = Array.from({ length: events }, (_, i) => `evt_${subName}_${i}`)
    await inTransaction(db, (trx) =>
      enqueueEvents(
        trx,
        eventIds.map((eventId, i) => ({
          eventId,
          subId,
          packageId: `pkg_${subName}_${i}`,
          variant: 'tracking' as const,
          eventName: 'Received',
          sequence: 1,
          occurredAt: new Date(),
          data: { packageId: `pkg_${subName}_${i}`, sequence: 1 },
        })),
      ),
    )
    await webhooks.close()
    return { configId: cfg.webHookConfigID, secret: cfg.signingSecret, eventIds }
  })
}

describe('mailroom worker', () => {
  it('loses nothing when killed with -9 while the receiver holds the request: the next worker delivers it', async () => {
    // timeOut 1 s: the lease is 2 × 1 + 10 s, so the second worker takes over 12 s after the first claimed.
    const { configId, eventIds } = await seed('killed', 1, 1)
    rx.routes.set('/killed', () => 'hold')
    const first = await startWorker(env)
    running.push(first)
    await rx.waitFor(1)
    expect(await first.stop('SIGKILL')).toBeNull()
    rx.routes.set('/killed', () => ({ status: 200 }))
    rx.release({ status: 200 }) // too late: the socket died with the worker

    const second = await startWorker(env)
    running.push(second)
    await rx.waitFor(2, 40_000)
    const [a, b] = rx.at('/killed')
    expect(a!.headers['webhook-id']).toBe(eventIds[0])
    expect(b!.headers['webhook-id']).toBe(eventIds[0])
    expect(Number(b!.headers['webhook-timestamp'])).toBeGreaterThanOrEqual(Number(a!.headers['webhook-timestamp']) + 12)
    await new Promise((r) => setTimeout(r, 500))
    expect(await second.stop('SIGTERM')).toBe(0)

    await withDb(async (db) => {
      const d = await db
        .selectFrom('webhook_deliveries')
        .select(['delivery_id', 'status', 'attempts', 'locked_by'])
        .where('config_id', '=', configId)
        .executeTakeFirstOrThrow()
      expect(d).toMatchObject({ status: 'delivered', attempts: 2, locked_by: null })
      const attempts = await db
        .selectFrom('webhook_attempts')
        .select(['attempt_no', 'succeeded', 'error_class'])
        .where('delivery_id', '=', d.delivery_id)
        .orderBy('attempt_no')
        .execute()
      expect(attempts).toEqual([
        { attempt_no: 1, succeeded: false, error_class: 'lease_expired' },
        { attempt_no: 2, succeeded: true, error_class: null },
      ])
    })
    expect(rx.at('/killed')).toHaveLength(2)
  })

  it('shares the work between workers: every event is delivered once, and no attempt is made twice', async () => {
    // A generous timeOut: on PGlite the receiver shares this process with the database's synchronous disk writes.
    const { configId, eventIds } = await seed('shared', 60, 10)
    const workers = env.DATABASE_URL ? [await startWorker(env), await startWorker(env)] : [] // PGlite is one process's: two in-process workers share its connection instead.
    running.push(...workers)
    const local = env.DATABASE_URL
      ? []
      : await (async () => {
          const handle = await openDatabase({ kind: 'pglite', dir: path.join(dataDir, 'pglite') })
          const config = loadConfig({ ...env, LOG_LEVEL: 'silent' })
          const ws = [0, 1].map(() =>
            createWebhooks({
              db: handle.db,
              clock: systemClock,
              ids: defaultIds,
              config,
              sealKey: deriveKey(TEST_SECRET, 'webhook-credential-seal'),
            }),
          )
          const stops = ws.map((w) => w.start())
          return [
            {
              stop: async () => {
                for (const s of stops) await s()
                await handle.close()
              },
            },
          ]
        })()
    const deadline = Date.now() + 30_000
    while (rx.at('/shared').length < 60 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100))
    await new Promise((r) => setTimeout(r, 1000))
    for (const w of workers) expect(await w.stop('SIGTERM')).toBe(0)
    for (const l of local) await l.stop()

    const ids = rx.at('/shared').map((r) => r.headers['webhook-id'])
    expect(ids).toHaveLength(60)
    expect(new Set(ids).size).toBe(60)
    expect(new Set(ids)).toEqual(new Set(eventIds))
    await withDb(async (db) => {
      const rows = await db
        .selectFrom('webhook_deliveries')
        .select(['status', 'attempts'])
        .where('config_id', '=', configId)
        .execute()
      expect(rows).toHaveLength(60)
      expect(rows.every((r) => r.status === 'delivered' && r.attempts === 1)).toBe(true)
      const attempts = await db
        .selectFrom('webhook_attempts')
        .select('attempt_id')
        .where('config_id', '=', configId)
        .execute()
      expect(attempts).toHaveLength(60)
    })
  })
})
