import { afterAll, beforeAll, expect, it } from 'vitest'
import { COUNT_CAP } from '../../src/search/search.repo.js'
import { seedSubscription } from '../../src/seed/seed.service.js'
import { buildTestApp, type TestApp } from '../support/build-test-app.js'

let t: TestApp
let auth: Record<string, string>
beforeAll(async () => {
  t = await buildTestApp()
  const seeded = await seedSubscription(t.ctx.db, t.ctx.clients, { subscription: 'big', packages: COUNT_CAP + 50, contacts: 50 })
  const { access_token: token } = await t.ctx.tokens.issueToken({ clientId: seeded.clientId, subId: seeded.subId, status: 'active' })
  auth = { authorization: `Bearer ${token}` }
}, 120_000)
afterAll(() => t.close())

it('counts exactly up to the cap and says when the total is capped', async () => {
  const all = await t.inject({ method: 'POST', url: '/api/v1/packages/search?size=1', headers: auth, payload: {} })
  expect(all.statusCode).toBe(200)
  expect(all.json().totalCount).toBe(COUNT_CAP)
  expect(all.headers['x-total-count-capped']).toBe('true')
  const few = await t.inject({ method: 'POST', url: '/api/v1/packages/search?status=DAMAGED&size=1', headers: auth, payload: {} })
  const damaged = await t.ctx.db.selectFrom('packages').select((eb) => eb.fn.countAll<number>().as('n')).where('current_status', '=', 'DAMAGED').executeTakeFirstOrThrow()
  expect(few.json().totalCount).toBe(Number(damaged.n))
  expect(few.headers['x-total-count-capped']).toBeUndefined()
})
