import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import {
  DatabaseFailureLimiter,
  MemoryFailureLimiter,
  type FailureLimiter,
  type FailurePolicy,
} from '../../src/access/model/failure-limiter.js'
import type { DatabaseHandle } from '../../src/platform/db/database.js'
import { ManualClock } from '../../src/platform/kit/clock.js'
import { createTestDatabase } from '../support/test-db.js'

// The failure limiter shared by the processes of a deployment (issue 16.2): the same rules as the
// in-memory one (test/unit/auth-units.test.ts), each scenario run on both, the shared one through
// two instances ("processes") on one database taking turns, so every count has to go through it.
let db: { handle: DatabaseHandle; drop(): Promise<void> }
beforeAll(async () => {
  db = await createTestDatabase()
})
afterAll(() => db.drop())

const POLICY: FailurePolicy = { limit: 3, windowSeconds: 60, addressFactor: 2, clientFactor: 4, maxBackoffFactor: 4 }
let run = 0

/** One limiter as the tests call it: failures and successes alternate between the instances. */
function limiterOn(kind: 'memory' | 'database', clock: ManualClock) {
  // Each test its own key space: the table is shared by the whole file.
  const ns = `t${++run}-`
  const instances: FailureLimiter[] =
    kind === 'memory'
      ? [new MemoryFailureLimiter(clock, POLICY)]
      : [
          new DatabaseFailureLimiter(db.handle.db, clock, POLICY),
          new DatabaseFailureLimiter(db.handle.db, clock, POLICY),
        ]
  let turn = 0
  const next = () => instances[turn++ % instances.length]!
  const id = (clientId: string | undefined) => (clientId === undefined ? undefined : ns + clientId)
  return {
    retryAfter: async (clientId: string | undefined, address: string) => next().retryAfter(id(clientId), ns + address),
    fail: async (n: number, clientId: string | undefined, address: string) => {
      for (let i = 0; i < n; i++) await next().recordFailure(id(clientId), ns + address)
    },
    succeed: async (clientId: string, address: string) => {
      // A success is seen by the process that checked the credentials: it asks first, as checkClientCredentials does.
      const l = next()
      expect(await l.retryAfter(id(clientId), ns + address)).toBe(0)
      await l.recordSuccess(ns + clientId, ns + address)
    },
  }
}

describe.each(['memory', 'database'] as const)('%s failure limiter', (kind) => {
  it('locks a client id only from the address that failed, until the window ends, and forgets it after', async () => {
    const clock = new ManualClock('2026-01-01T00:00:00Z')
    const l = limiterOn(kind, clock)
    await l.fail(2, 'real', '198.51.100.7')
    expect(await l.retryAfter('real', '198.51.100.7')).toBe(0)
    await l.fail(1, 'real', '198.51.100.7')
    expect(await l.retryAfter('real', '198.51.100.7')).toBe(60)
    expect(await l.retryAfter('real', '203.0.113.1')).toBe(0)
    clock.advance(30_500)
    expect(await l.retryAfter('real', '198.51.100.7')).toBe(30)
    clock.advance(30_000)
    expect(await l.retryAfter('real', '198.51.100.7')).toBe(0)
  })

  it('doubles each further lock of the same key, up to the cap, and starts afresh after a quiet spell', async () => {
    const clock = new ManualClock('2026-01-01T00:00:00Z')
    const l = limiterOn(kind, clock)
    const locks: number[] = []
    for (let i = 0; i < 4; i++) {
      await l.fail(3, 'id', 'a')
      locks.push(await l.retryAfter('id', 'a'))
      clock.advance(locks[i]! * 1000)
    }
    expect(locks).toEqual([60, 120, 240, 240])
    clock.advance(480_000)
    await l.fail(3, 'id', 'a')
    expect(await l.retryAfter('id', 'a')).toBe(60)
  })

  it('bounds one address across client ids, and one client id across addresses with a much higher ceiling', async () => {
    const clock = new ManualClock('2026-01-01T00:00:00Z')
    const l = limiterOn(kind, clock)
    for (let i = 0; i < 3; i++) await l.fail(2, `guess${i}`, 'one-address')
    expect(await l.retryAfter('anything', 'one-address')).toBe(60)
    expect(await l.retryAfter(undefined, 'one-address')).toBe(60)
    expect(await l.retryAfter('anything', 'another-address')).toBe(0)
    for (let i = 0; i < 11; i++) await l.fail(1, 'target', `bot${i}`)
    expect(await l.retryAfter('target', 'owner')).toBe(0)
    await l.fail(1, 'target', 'bot11')
    expect(await l.retryAfter('target', 'owner')).toBe(60)
  })

  it('starts the pair afresh on success, but not the address', async () => {
    const clock = new ManualClock('2026-01-01T00:00:00Z')
    const l = limiterOn(kind, clock)
    await l.fail(2, 'id', 'a')
    await l.succeed('id', 'a')
    await l.fail(2, 'id', 'a')
    expect(await l.retryAfter('id', 'a')).toBe(0)
    await l.fail(2, 'other', 'a')
    expect(await l.retryAfter('other2', 'a')).toBe(60)
  })

  it('counts failures made at the same moment through several processes, none lost', async () => {
    const clock = new ManualClock('2026-01-01T00:00:00Z')
    const l = limiterOn(kind, clock)
    // limit × clientFactor = 12 failures of one id lock it everywhere: 12 at once, from 12 addresses.
    await Promise.all(Array.from({ length: 11 }, (_, i) => l.fail(1, 'raced', `bot${i}`)))
    expect(await l.retryAfter('raced', 'owner')).toBe(0)
    await l.fail(1, 'raced', 'bot11')
    expect(await l.retryAfter('raced', 'owner')).toBe(60)
  })
})

describe('database failure limiter', () => {
  it('keeps only keys still remembered: forgotten ones are swept as failures go on', async () => {
    const clock = new ManualClock('2026-02-01T00:00:00Z')
    const l = new DatabaseFailureLimiter(db.handle.db, clock, POLICY, 10)
    for (let i = 0; i < 5; i++) await l.recordFailure(`sweep${i}`, `198.51.100.${i}`)
    clock.advance(10 * 60_000)
    for (let i = 0; i < 5; i++) await l.recordFailure('sweeper', '192.0.2.1')
    await new Promise((r) => setTimeout(r, 200)) // the sweep is not awaited by the failure that starts it
    const left = (await db.handle.db
      .selectFrom('auth_failures' as never)
      .select('key' as never)
      .execute()) as Array<{ key: string }>
    expect(left.filter((r) => r.key.includes('sweep') && !r.key.includes('sweeper'))).toEqual([])
  })

  it('costs a client that never fails no write: success deletes only a pair seen failing', async () => {
    const clock = new ManualClock('2026-03-01T00:00:00Z')
    const [p1, p2] = [
      new DatabaseFailureLimiter(db.handle.db, clock, POLICY),
      new DatabaseFailureLimiter(db.handle.db, clock, POLICY),
    ]
    await p1.recordFailure('seen', '192.0.2.9')
    // The other process learns of the pair from its own check, and deletes it on success.
    expect(await p2.retryAfter('seen', '192.0.2.9')).toBe(0)
    await p2.recordSuccess('seen', '192.0.2.9')
    const rows = (await db.handle.db
      .selectFrom('auth_failures' as never)
      .select('key' as never)
      .execute()) as Array<{ key: string }>
    expect(rows.map((r) => r.key).filter((k) => k.includes('seen'))).toEqual(['c:seen'])
  })
})
