import { parse as parseCsv } from 'csv-parse/sync'
import type { CompiledQuery, QueryId } from 'kysely'
import { afterEach, beforeAll, describe, expect, it, vi } from 'vitest'
import { seedSubscription } from '../../src/app/seed/seed.js'
import { useTestApp } from '../support/use-test-app.js'

/**
 * A subscription of more than 10,000 packages (more than one export batch, more than the old count
 * cap): exact totals, and CSV exports that fail or are abandoned half-way without harm.
 */
const PACKAGES = 10_050
const t = useTestApp()
let auth: Record<string, string>
let base: string

beforeAll(async () => {
  await seedSubscription(t.ctx.db, t.ctx.clients, { subscription: 'neighbour', packages: 300, contacts: 50, seed: 3 })
  const seeded = await seedSubscription(t.ctx.db, t.ctx.clients, {
    subscription: 'big',
    packages: PACKAGES,
    contacts: 400,
  })
  const { access_token: token } = await t.ctx.tokens.issueToken({
    clientId: seeded.clientId,
    subId: seeded.subId,
    status: 'active',
  })
  auth = { authorization: `Bearer ${token}` }
  // Real HTTP, so a cut response and a client going away happen as they do in production.
  base = await t.app.listen({ port: 0, host: '127.0.0.1' })
}, 300_000)

const json = async (method: 'GET' | 'POST', url: string, body?: unknown) => {
  const res = await t.inject({ method, url, headers: auth, ...(body ? { payload: body } : {}) })
  expect(res.statusCode, res.body).toBe(200)
  return { body: res.json(), headers: res.headers }
}
const csvRows = async (url: string, body: unknown) => {
  const res = await t.inject({ method: 'POST', url, headers: { ...auth, accept: 'text/csv' }, payload: body as object })
  expect(res.statusCode).toBe(200)
  return (parseCsv(res.body) as string[][]).slice(1)
}

describe('totalCount', () => {
  it('is exact beyond 10,000 matches, with no cap header', async () => {
    const all = await json('POST', '/api/v1/packages/search?size=1', {})
    expect(all.body.totalCount).toBe(PACKAGES)
    expect(all.headers['x-total-count-capped']).toBeUndefined()
    const listed = await json('GET', '/api/v1/packages?search=trackingNumber:1&searchPosition=starts&size=1')
    expect(listed.body.totalCount).toBeGreaterThan(0)
    expect(listed.headers['x-total-count-capped']).toBeUndefined()
  })

  it('is the number of rows the same filters export, for every filter shape', async () => {
    // A building: the parent of the shelf a package sits on.
    const site = (await json('POST', '/api/v1/packages/search?size=1', { 'currentLocation.ancestorlist': 'up' })).body
      .packages[0].up[1]
    const day = 86_400_000
    const queries = [
      'status=UNDELIVERED',
      'status=DAMAGED,IN_LOCKER',
      `inboundSiteId=${site}`,
      `inboundSiteId=${site}&status=RECEIVED,READY_FOR_PICKUP`,
      `startDate=${new Date(Date.now() - 30 * day).toISOString()}&endDate=${new Date(Date.now() - 10 * day).toISOString()}`,
    ]
    for (const q of queries) {
      const { body } = await json('POST', `/api/v1/packages/search?${q}&size=1`, { packageId: 'id' })
      expect(body.totalCount, q).toBe((await csvRows(`/api/v1/packages/search?${q}`, { packageId: 'id' })).length)
      expect(body.totalCount, q).toBeGreaterThan(0)
    }
  })

  it('stays exact on a short last page and past the end', async () => {
    const all = (await json('GET', '/api/v1/packages?search=carrier.name:purolator&size=1')).body.totalCount
    expect(all).toBeGreaterThan(300)
    const lastPage = Math.ceil(all / 200)
    const last = await json('GET', `/api/v1/packages?search=carrier.name:purolator&size=200&page=${lastPage}`)
    expect(last.body.totalCount).toBe(all)
    expect(last.body.packages).toHaveLength(all - (lastPage - 1) * 200)
    const past = await json('GET', `/api/v1/packages?search=carrier.name:purolator&size=200&page=${lastPage + 1}`)
    expect(past.body).toEqual({ packages: [], totalCount: all })
  })
})

/**
 * Wraps the database's query executor: `before` runs ahead of every query and may delay or fail it.
 * An export batch is told apart by its SQL: it selects `sort_key`.
 */
function interceptQueries(before: (sql: string) => Promise<void> | void): () => void {
  const executor = t.ctx.db.getExecutor() as unknown as {
    executeQuery: (q: CompiledQuery, id: QueryId) => Promise<unknown>
  }
  const original = executor.executeQuery
  executor.executeQuery = async function (this: unknown, q: CompiledQuery, id: QueryId) {
    await before(q.sql)
    return original.call(this, q, id)
  }
  return () => {
    executor.executeQuery = original
  }
}
let restore: (() => void) | undefined
afterEach(() => {
  restore?.()
  restore = undefined
  vi.restoreAllMocks()
})

const exportUrl = () => `${base}/api/v1/packages/search?sort=trackingNumber,ASC`
const exportInit = (signal?: AbortSignal): RequestInit => ({
  method: 'POST',
  headers: { ...auth, accept: 'text/csv', 'content-type': 'application/json' },
  body: JSON.stringify({ trackingNumber: 'tn' }),
  ...(signal ? { signal } : {}),
})

describe('CSV export of every row', () => {
  it('streams more rows than one batch, in order', async () => {
    const res = await fetch(exportUrl(), exportInit())
    const rows = (parseCsv(await res.text()) as string[][]).slice(1).map((r) => r[0]!)
    expect(rows).toHaveLength(PACKAGES)
    expect(rows).toEqual([...rows].sort())
  })

  it('cuts the response when the database fails mid-stream, logs it, and keeps serving', async () => {
    const logged = vi.spyOn(t.app.log, 'error')
    let reads = 0
    restore = interceptQueries((sql) => {
      if (sql.includes('sort_key') && ++reads === 3) throw new Error('connection to the database lost')
    })
    const res = await fetch(exportUrl(), exportInit())
    expect(res.status).toBe(200)
    // The body ends without the chunked terminator: the client sees an error, never a complete file.
    const received: string[] = []
    const reader = res.body!.pipeThrough(new TextDecoderStream()).getReader()
    const outcome = await (async () => {
      try {
        for (;;) {
          const { done, value } = await reader.read()
          if (done) return 'complete'
          received.push(value)
        }
      } catch {
        return 'cut'
      }
    })()
    expect(outcome).toBe('cut')
    const lines = received.join('').split('\r\n').length
    expect(lines).toBeGreaterThan(1000)
    expect(lines).toBeLessThan(PACKAGES)
    expect(logged).toHaveBeenCalledWith(
      expect.objectContaining({ err: expect.objectContaining({ message: 'connection to the database lost' }) }),
      expect.stringContaining('CSV export failed'),
    )
    restore()
    restore = undefined
    // Still up, and the next export is whole.
    expect((parseCsv(await (await fetch(exportUrl(), exportInit())).text()) as string[][]).length).toBe(PACKAGES + 1)
  })

  it('answers 500 with the error body when the database fails before the first row', async () => {
    restore = interceptQueries((sql) => {
      if (sql.includes('sort_key')) throw new Error('database down')
    })
    const res = await fetch(exportUrl(), exportInit())
    expect(res.status).toBe(500)
    expect(res.headers.get('content-type')).toMatch(/json/)
    expect(JSON.stringify(await res.json())).not.toContain('database down')
  })

  it('stops reading the database when the client goes away', async () => {
    const info = vi.spyOn(t.app.log, 'info')
    const idBatches: number[] = []
    let releaseSecond!: () => void
    const secondHeld = new Promise<void>((r) => (releaseSecond = r))
    let reachedSecond!: () => void
    const atSecond = new Promise<void>((r) => (reachedSecond = r))
    restore = interceptQueries(async (sql) => {
      if (!sql.includes('sort_key')) return
      idBatches.push(Date.now())
      if (idBatches.length === 2) {
        reachedSecond()
        await secondHeld
      }
    })
    const abort = new AbortController()
    const res = await fetch(exportUrl(), exportInit(abort.signal))
    const reader = res.body!.getReader()
    await reader.read()
    await atSecond
    abort.abort()
    await new Promise((r) => setTimeout(r, 100))
    releaseSecond()
    await vi.waitFor(
      () =>
        expect(info).toHaveBeenCalledWith(
          expect.objectContaining({ rows: expect.any(Number) }),
          expect.stringContaining('client went away'),
        ),
      { timeout: 5000 },
    )
    await new Promise((r) => setTimeout(r, 300))
    // Eleven batches were to come: the one in flight when the client left, and the one read ahead
    // of it, are the last.
    const read = idBatches.length
    expect(read).toBeLessThanOrEqual(3)
    await new Promise((r) => setTimeout(r, 500))
    expect(idBatches).toHaveLength(read)
  })
})
