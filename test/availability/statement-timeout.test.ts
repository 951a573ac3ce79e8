import Fastify from 'fastify'
import { sql } from 'kysely'
import { beforeAll, describe, expect, it } from 'vitest'
import { registerErrorHandling } from '../../src/platform/http/error-handler.js'
import { useTestApp, useClient } from '../support/use-test-app.js'

/** Issue 14.2: no request waits on the database without bound; past it, a clear 503. */
describe('statement timeout', () => {
  it('answers a statement cancelled by the timeout (57014) and a pool wait past it as 503 with Retry-After and the error body', async () => {
    const app = Fastify({ logger: false })
    registerErrorHandling(app)
    app.get('/cancelled', async () => {
      throw Object.assign(new Error('canceling statement due to statement timeout'), { code: '57014' })
    })
    app.get('/no-connection', async () => {
      throw new Error('timeout exceeded when trying to connect')
    })
    for (const url of ['/cancelled', '/no-connection']) {
      const res = await app.inject({ url })
      expect(res.statusCode).toBe(503)
      expect(res.headers['retry-after']).toBe('1')
      expect(res.json().errors).toEqual([
        expect.objectContaining({ errorCode: 'internal_error', additionalCode: 'GEN-5031' }),
      ])
    }
    await app.close()
  })

  // PGlite runs each statement to its end on the process's one thread: nothing can interrupt it,
  // so the bound exists on PostgreSQL only (README, DB_STATEMENT_TIMEOUT_MS).
  describe.runIf(!!process.env.TEST_DATABASE_URL)('on PostgreSQL', () => {
    const t = useTestApp({ DB_STATEMENT_TIMEOUT_MS: '300' })
    const c = useClient(t)
    beforeAll(async () => {
      expect((await t.inject({ url: '/api/v1/contacts', headers: c.auth })).statusCode).toBe(200)
    })

    it('stops a request stuck behind a lock after the timeout with a 503, not a hung socket', async () => {
      let release!: () => void
      const released = new Promise<void>((r) => (release = r))
      let locked!: () => void
      const isLocked = new Promise<void>((r) => (locked = r))
      // The holder sets its own bound off: only the request's statement is bounded.
      const holder = t.ctx.db.transaction().execute(async (trx) => {
        await sql`set local statement_timeout = 0`.execute(trx)
        await sql`lock table contacts in access exclusive mode`.execute(trx)
        locked()
        await released
      })
      await isLocked
      // Answered while the lock is still held (released only below): the statement was bounded, not
      // left waiting; a hung request fails the test by its timeout. No clock is needed to show it.
      const res = await t.inject({ url: '/api/v1/contacts', headers: c.auth })
      release()
      await holder
      expect(res.statusCode).toBe(503)
      expect(res.json().errors[0]).toMatchObject({ errorCode: 'internal_error', additionalCode: 'GEN-5031' })
      expect((await t.inject({ url: '/api/v1/contacts', headers: c.auth })).statusCode).toBe(200)
    })
  })
})
