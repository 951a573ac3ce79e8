import { describe, expect, it } from 'vitest'
import { useTestApp } from '../support/use-test-app.js'
import { scimCaller } from './scim-support.js'

// Okta and Entra call from egress addresses shared by all their customers: a subscription's SCIM
// traffic counts against its own limit, not the address's; bad tokens count against the address.
describe('SCIM rate limits', () => {
  const t = useTestApp({ RATE_LIMIT_MAX: '3', RATE_LIMIT_WINDOW_SECONDS: '60' })

  it('counts each token against its subscription, so tenants behind one address do not share a limit', async () => {
    const one = await scimCaller(t, await t.newClient())
    const two = await scimCaller(t, await t.newClient())
    // The subscription's window already holds the token's creation (one API request): two left.
    const first = []
    for (let i = 0; i < 3; i++) first.push((await one.call('GET', '/Users')).statusCode)
    expect(first).toEqual([200, 200, 429])
    // The same address, another subscription: its own window.
    expect((await two.call('GET', '/Users')).statusCode).toBe(200)
    expect((await two.call('GET', '/Users')).statusCode).toBe(200)
    expect((await one.call('GET', '/Users')).statusCode).toBe(429)
  })

  it('counts refused tokens against the caller’s address', async () => {
    const out: number[] = []
    for (let i = 0; i < 4; i++)
      out.push(
        (
          await t.inject({
            method: 'GET',
            url: '/scim/v2/Users',
            remoteAddress: '192.0.2.7',
            headers: { authorization: 'Bearer mrscim_sct_bad.guess' },
          })
        ).statusCode,
      )
    expect(out).toEqual([401, 401, 401, 429])
  })
})
