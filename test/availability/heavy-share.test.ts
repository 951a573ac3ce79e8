import { beforeAll, describe, expect, it } from 'vitest'
import type { TestClient } from '../support/build-test-app.js'
import { whilePackagesHeld } from '../support/hold-database.js'
import { useTestApp } from '../support/use-test-app.js'

/**
 * Issue 14: while one subscription runs heavy requests back to back, another's light requests keep
 * their latency. Beyond its burst, a subscription gets its share of the heavy slots over time
 * (HEAVY_SHARE), and only while another subscription is served. The database is held so that one
 * search of the noisy tenant holds its slot for a known time.
 */
describe('a subscription’s share of the heavy slots over time', () => {
  const HOLD_MS = 1000
  // Share 0.5 of one slot, a 100 ms burst: a 1,000 ms turn leaves 100 + 500 − 1,000 = 400 slot-ms owed, 800 ms to wait.
  const t = useTestApp({ HEAVY_OPERATIONS_MAX: '1', HEAVY_SHARE: '0.5', HEAVY_BURST_MS: '100' })
  let noisy: TestClient
  let quiet: TestClient
  let alone: TestClient
  beforeAll(async () => {
    ;[noisy, quiet, alone] = [await t.newClient(), await t.newClient(), await t.newClient()]
    // Client status and reference data cached now, so only the gated work waits on the held database.
    for (const c of [noisy, quiet, alone]) expect((await search(c)).statusCode).toBe(200)
    await new Promise((r) => setTimeout(r, 1100)) // nobody present any more
  })

  const search = (c: TestClient) =>
    t.inject({
      method: 'GET',
      url: '/api/v1/packages?search=receiver.name:smith&secondTierSearchSelected=true',
      headers: c.auth,
    })
  const contacts = (c: TestClient) => t.inject({ method: 'GET', url: '/api/v1/contacts', headers: c.auth })
  /** Heavy turns the time share has held back, as an operator reads them at /metrics. */
  const heldTurns = async () => {
    const text = (await t.inject({ method: 'GET', url: '/metrics' })).body
    return Number(/^mailroom_heavy_share_held_total (\d+)$/m.exec(text)?.[1])
  }

  /**
   * One search of `c` that holds its heavy slot for HOLD_MS while `others` keep coming: each sends a
   * light request every 250 ms. Those are answered once the database is free (PGlite runs one
   * transaction), but they count as present when they arrive.
   */
  async function longSearch(c: TestClient, others: TestClient[]): Promise<void> {
    let searched!: Promise<{ statusCode: number }>
    const light: Array<Promise<{ statusCode: number }>> = []
    await whilePackagesHeld(t, async () => {
      searched = search(c)
      for (let held = 0; held < HOLD_MS; held += 250) {
        light.push(...others.map((o) => contacts(o)))
        await new Promise((r) => setTimeout(r, 250))
      }
    })
    expect((await searched).statusCode).toBe(200)
    for (const answer of await Promise.all(light)) expect(answer.statusCode).toBe(200)
  }

  it('holds back the next heavy request of a subscription past its share while another is served, not the other', async () => {
    await longSearch(noisy, [quiet])
    const before = await heldTurns()
    // The noisy tenant's next search waits out its debt (800 ms); the quiet tenant's light request
    // and its own search, sent after it, are answered first, and only the noisy one was held.
    const answered: string[] = []
    const noted = (who: string) => (r: { statusCode: number }) => (answered.push(who), r.statusCode)
    const statuses = await Promise.all([
      search(noisy).then(noted('noisy search')),
      contacts(quiet).then(noted('quiet contacts')),
      search(quiet).then(noted('quiet search')),
    ])
    expect(statuses).toEqual([200, 200, 200])
    expect(answered.at(-1)).toBe('noisy search')
    expect(await heldTurns()).toBe(before + 1)
  })

  it('does not hold back a subscription alone on the service (work-conserving)', async () => {
    await new Promise((r) => setTimeout(r, 1100)) // the others have gone quiet
    await longSearch(alone, [])
    const before = await heldTurns()
    expect((await search(alone)).statusCode).toBe(200)
    expect(await heldTurns()).toBe(before)
  })
})
