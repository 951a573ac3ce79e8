import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import {
  MemoryFailureLimiter,
  type Attempt,
  type FailureLimiter,
  type FailurePolicy,
} from '../../src/access/model/failure-limiter.js'
import { DatabaseFailureLimiter } from '../../src/access/model/shared-failure-limiter.js'
import type { DatabaseHandle } from '../../src/platform/db/database.js'
import { ManualClock } from '../../src/platform/kit/clock.js'
import { createTestDatabase } from '../support/test-db.js'

// The guessing limits (issues 16.2, 26.4, 26.5): the same rules in memory and in the database, each
// scenario run on both, the shared one through two instances ("processes") on one database taking
// turns, so every count has to go through it.
let db: { handle: DatabaseHandle; drop(): Promise<void> }
beforeAll(async () => {
  db = await createTestDatabase()
})
afterAll(() => db.drop())

const POLICY: FailurePolicy = { limit: 3, windowSeconds: 60, addressFactor: 2, clientFactor: 4, maxBackoffFactor: 4 }
let run = 0

function instancesOf(kind: 'memory' | 'database', clock: ManualClock, policy: FailurePolicy): FailureLimiter[] {
  return kind === 'memory'
    ? [new MemoryFailureLimiter(clock, policy)]
    : [new DatabaseFailureLimiter(db.handle.db, clock, policy), new DatabaseFailureLimiter(db.handle.db, clock, policy)]
}

/** One limiter as the tests call it: attempts alternate between the instances. */
function limiterOn(kind: 'memory' | 'database', clock: ManualClock, policy = POLICY) {
  // Each test its own key space: the table is shared by the whole file.
  const ns = `t${++run}-`
  const instances = instancesOf(kind, clock, policy)
  let turn = 0
  const next = () => instances[turn++ % instances.length]!
  const attempt = (clientId: string | undefined, address: string, device?: string): Attempt => ({
    identity: clientId === undefined ? undefined : ns + clientId,
    address: ns + address,
    ...(device !== undefined ? { device: ns + device } : {}),
  })
  return {
    next,
    attempt,
    /** Seconds to wait before `clientId` may be tried from `address` (an attempt made and given back). */
    retryAfter: async (clientId: string | undefined, address: string, device?: string) => {
      const l = next()
      const a = await l.admit(attempt(clientId, address, device))
      if (!a.admitted) return a.retryAfterSeconds
      await l.release(a.ticket)
      return 0
    },
    fail: async (n: number, clientId: string | undefined, address: string, device?: string) => {
      for (let i = 0; i < n; i++) {
        const l = next()
        const a = await l.admit(attempt(clientId, address, device))
        if (!a.admitted) throw new Error(`attempt ${i + 1} refused`)
        await l.failed(a.ticket)
      }
    },
    succeed: async (clientId: string, address: string, device?: string) => {
      const l = next()
      const a = await l.admit(attempt(clientId, address, device))
      expect(a.admitted).toBe(true)
      if (a.admitted) await l.succeeded(a.ticket)
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

  it('counts an attempt before its check: of a burst of 20 at once through two processes, exactly the limit get in', async () => {
    const clock = new ManualClock('2026-01-01T00:00:00Z')
    const l = limiterOn(kind, clock)
    // Every admitted attempt is still being checked when the others arrive: none has failed yet.
    const admissions = await Promise.all(
      Array.from({ length: 20 }, async () => l.next().admit(l.attempt('burst', '192.0.2.5'))),
    )
    const admitted = admissions.filter((a) => a.admitted)
    expect(admitted).toHaveLength(3)
    expect(admissions.filter((a) => !a.admitted).every((a) => !a.admitted && a.retryAfterSeconds >= 1)).toBe(true)
    for (const a of admitted) if (a.admitted) await l.next().failed(a.ticket)
    expect(await l.retryAfter('burst', '192.0.2.5')).toBe(60)
  })

  it('gives a right answer its count back: successes never lock, and a success frees a place a burst filled', async () => {
    const clock = new ManualClock('2026-01-01T00:00:00Z')
    const l = limiterOn(kind, clock)
    for (let i = 0; i < 10; i++) await l.succeed('good', '192.0.2.6')
    await l.fail(2, 'good', '192.0.2.6')
    expect(await l.retryAfter('good', '192.0.2.6')).toBe(0)
    const a = await l.next().admit(l.attempt('good', '192.0.2.6'))
    expect(await l.next().admit(l.attempt('good', '192.0.2.6'))).toMatchObject({
      admitted: false,
      retryAfterSeconds: 1,
    })
    if (a.admitted) await l.next().succeeded(a.ticket)
    expect(await l.retryAfter('good', '192.0.2.6')).toBe(0)
  })

  it('lets a device proven by its cookie pass a lock of the identity, counting its own failures apart', async () => {
    const clock = new ManualClock('2026-01-01T00:00:00Z')
    const l = limiterOn(kind, clock)
    for (let i = 0; i < 12; i++) await l.fail(1, 'user:victim', `bot${i}`)
    expect(await l.retryAfter('user:victim', 'new-address')).toBe(60)
    expect(await l.retryAfter('user:victim', 'new-address', 'device-1')).toBe(0)
    await l.succeed('user:victim', 'new-address', 'device-1')
    // A stolen or guessed-at device has its own small limit.
    await l.fail(3, 'user:victim', 'anywhere', 'device-2')
    expect(await l.retryAfter('user:victim', 'anywhere', 'device-2')).toBe(60)
    expect(await l.retryAfter('user:victim', 'anywhere', 'device-1')).toBe(0)
  })

  it('lets a client pass a lock of its id from an address it succeeded from before (trustKnownPairs)', async () => {
    const clock = new ManualClock('2026-01-01T00:00:00Z')
    const l = limiterOn(kind, clock, { ...POLICY, trustKnownPairs: true })
    await l.succeed('api-client', '192.0.2.10')
    for (let i = 0; i < 12; i++) await l.fail(1, 'api-client', `bot${i}`)
    expect(await l.retryAfter('api-client', '203.0.113.99')).toBe(60)
    expect(await l.retryAfter('api-client', '192.0.2.10')).toBe(0)
    await l.succeed('api-client', '192.0.2.10')
    // Without the policy the known address does not help (pickup codes: the subscription's ceiling holds).
    const strict = limiterOn(kind, clock)
    await strict.succeed('sub', 'desk')
    for (let i = 0; i < 12; i++) await strict.fail(1, 'sub', `desk${i}`)
    expect(await strict.retryAfter('sub', 'desk')).toBe(60)
  })

  it('takes a limit of any size: limit × factor past a 32-bit integer is no error', async () => {
    const clock = new ManualClock('2026-01-01T00:00:00Z')
    const l = limiterOn(kind, clock, { limit: 21_474_837, windowSeconds: 300 })
    await l.fail(3, 'huge', '192.0.2.11')
    expect(await l.retryAfter('huge', '192.0.2.11')).toBe(0)
  })
})

describe('database failure limiter', () => {
  it('keeps only keys still remembered: forgotten ones are swept as attempts go on', async () => {
    const clock = new ManualClock('2026-02-01T00:00:00Z')
    const l = new DatabaseFailureLimiter(db.handle.db, clock, POLICY, 10)
    const fail = async (identity: string, address: string) => {
      const a = await l.admit({ identity, address })
      if (a.admitted) await l.failed(a.ticket)
    }
    for (let i = 0; i < 5; i++) await fail(`sweep${i}`, `198.51.100.${i}`)
    clock.advance(10 * 60_000)
    for (let i = 0; i < 5; i++) await fail('sweeper', '192.0.2.1')
    // The sweep is not awaited by the attempt that starts it.
    const sweptKeys = async () =>
      (
        (await db.handle.db
          .selectFrom('auth_failures' as never)
          .select('key' as never)
          .execute()) as Array<{ key: string }>
      ).filter((r) => r.key.includes('sweep') && !r.key.includes('sweeper'))
    await expect.poll(sweptKeys, { timeout: 5_000 }).toEqual([])
  })

  it('leaves nothing counted after a success: the pair goes, the address and the id get their count back', async () => {
    const clock = new ManualClock('2026-03-01T00:00:00Z')
    const [p1, p2] = [
      new DatabaseFailureLimiter(db.handle.db, clock, POLICY),
      new DatabaseFailureLimiter(db.handle.db, clock, POLICY),
    ]
    const a = await p1.admit({ identity: 'seen', address: '192.0.2.9' })
    if (!a.admitted) throw new Error('refused')
    await p2.succeeded(a.ticket)
    const rows = (await db.handle.db
      .selectFrom('auth_failures' as never)
      .select(['key', 'failures'] as never)
      .execute()) as Array<{ key: string; failures: number }>
    expect(rows.filter((r) => r.key.includes('seen') || r.key === 'a:192.0.2.9')).toEqual([
      expect.objectContaining({ key: 'a:192.0.2.9', failures: 0 }),
      expect.objectContaining({ key: 'c:seen', failures: 0 }),
    ])
  })
})
