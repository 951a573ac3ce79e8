import { describe, expect, it } from 'vitest'
import { basic } from '../support/build-test-app.js'
import { useTestApp } from '../support/use-test-app.js'

// Issue 26.9: the largest value each guessing limit accepts at boot must still work at request time
// (TOKEN_FAILURE_LIMIT=21474837 used to overflow the int4 count and answer 500 to every failed login).
const t = useTestApp({
  TOKEN_FAILURE_LIMIT: '1000000',
  TOKEN_FAILURE_WINDOW_SECONDS: '86400',
  PICKUP_CODE_FAILURE_LIMIT: '1000000',
  PICKUP_CODE_FAILURE_WINDOW_SECONDS: '86400',
})

describe('guessing limits at their documented maxima', () => {
  it('a wrong client secret is a 401, twice', async () => {
    const c = await t.newClient()
    for (let attempt = 0; attempt < 2; attempt++) {
      const res = await t.inject({
        method: 'POST',
        url: '/auth/api/v1/token',
        headers: { authorization: basic(c.clientId, 'x'.repeat(43)) },
        remoteAddress: '10.9.0.1',
      })
      expect(res.statusCode).toBe(401)
    }
  })

  it('a wrong pickup code is a 400 naming pickupCode, twice', async () => {
    const c = await t.newClient()
    for (let attempt = 0; attempt < 2; attempt++) {
      const res = await t.inject({
        method: 'POST',
        url: '/api/v1/pickups',
        headers: c.auth,
        payload: { pickupCode: 'ZZZZZZ' },
      })
      expect(res.statusCode, res.body).toBe(400)
      expect(res.json().errors[0].additionalParameters).toBe('pickupCode')
    }
  })
})
