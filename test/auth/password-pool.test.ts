import { describe, expect, it } from 'vitest'
import { createUser } from '../support/console-session.js'
import { useClient, useTestApp } from '../support/use-test-app.js'

// Issue 26.6: password hashes run in a bounded pool with a share per address and per subscription.
// A flood is refused (429) before it is queued, and a quiet tenant's sign-in waits behind at most
// one share of it. One hash at a time, four places per key (the defaults on two cores).
const t = useTestApp({ PASSWORD_HASH_CONCURRENCY: '1', PASSWORD_HASH_QUEUE: '32', PASSWORD_HASHES_PER_KEY: '4' })
const flooder = useClient(t)
const quiet = useClient(t)

/** Resolves once the pool holds at least `n` hashes, running and waiting. */
async function poolHolds(n: number): Promise<void> {
  await expect
    .poll(() => t.ctx.passwords.load.running + t.ctx.passwords.load.waiting, { timeout: 30_000, interval: 5 })
    .toBeGreaterThanOrEqual(n)
}

/**
 * Sends `quietRequest` while `flood` is under way. The pool's run is watched: each hash that gets a
 * place ('in') and each that starts ('start'), named by its keys, so the count of flood hashes that
 * started while the quiet one waited for its turn is read where it happens, whatever the database's
 * own queue adds before the pool.
 */
async function amid(flood: Array<Promise<number>>, quietRequest: () => Promise<number>, quietKey: string) {
  const pool = t.ctx.passwords
  const events: string[] = []
  const run = pool.run.bind(pool)
  pool.run = async (keys, hash) => {
    pool.refuseIfFull(keys)
    const who = keys.includes(quietKey) ? 'quiet' : 'flood'
    events.push(`in ${who}`)
    return run(keys, async () => {
      events.push(`start ${who}`)
      return hash()
    })
  }
  try {
    await poolHolds(4)
    const quietStatus = await quietRequest()
    const statuses = await Promise.all(flood)
    expect(events).toContain('in quiet')
    expect(events).toContain('start quiet')
    const waited = events.slice(events.indexOf('in quiet'), events.indexOf('start quiet'))
    return { quietStatus, startedBefore: waited.filter((e) => e === 'start flood').length, statuses }
  } finally {
    pool.run = run
  }
}

describe('password hashing', () => {
  it('refuses an unauthenticated sign-in flood from 400 addresses with 429, and still serves a quiet tenant', async () => {
    await createUser(t, quiet, { email: 'quiet@example.com', role: 'clerk' })
    const flood = Array.from({ length: 400 }, (_, i) =>
      t
        .inject({
          method: 'POST',
          url: '/console/api/session',
          payload: { email: `nobody${i}@example.com`, password: 'guess guess guess' },
          remoteAddress: `10.${(i >> 8) & 255}.${i & 255}.1`,
        })
        .then((r) => r.statusCode),
    )
    const r = await amid(
      flood,
      async () =>
        (
          await t.inject({
            method: 'POST',
            url: '/console/api/session',
            payload: { email: 'quiet@example.com', password: 'correct horse battery' },
            remoteAddress: '192.0.2.200',
          })
        ).statusCode,
      'address:192.0.2.200',
    )
    expect(r.quietStatus).toBe(200)
    // The flood's share is four places: the quiet sign-in waited behind at most those.
    expect(r.startedBefore).toBeLessThanOrEqual(4)
    expect(r.statuses.filter((s) => s === 429).length).toBeGreaterThan(200)
    expect(r.statuses.every((s) => s === 401 || s === 429)).toBe(true)
  }, 120_000)

  it('refuses an admin client resetting passwords in a loop with 429, and still serves a quiet tenant', async () => {
    const { userId } = await createUser(t, flooder, { email: 'reset-me@example.com', role: 'clerk' })
    const flood = Array.from({ length: 60 }, () =>
      t
        .inject({
          method: 'POST',
          url: `/api/v1/users/${userId}/password`,
          headers: flooder.auth,
          payload: { password: 'another long password' },
        })
        .then((r) => r.statusCode),
    )
    const r = await amid(
      flood,
      async () =>
        (
          await t.inject({
            method: 'POST',
            url: '/console/api/session',
            payload: { email: 'quiet@example.com', password: 'correct horse battery' },
            remoteAddress: '192.0.2.201',
          })
        ).statusCode,
      'address:192.0.2.201',
    )
    expect(r.quietStatus).toBe(200)
    expect(r.startedBefore).toBeLessThanOrEqual(4)
    expect(r.statuses.filter((s) => s === 429).length).toBeGreaterThan(0)
    expect(r.statuses.every((s) => s === 200 || s === 204 || s === 429)).toBe(true)
  }, 120_000)
})
