import { request as httpRequest, type ClientRequest } from 'node:http'
import type { AddressInfo } from 'node:net'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { useClient, useTestApp } from '../support/use-test-app.js'

// Issue 26: large bad bodies. Each route accepts what its schema can need, and one subscription
// sends one large body at a time and 2 MiB of them a second, so its loops of 1 MiB bodies cannot
// starve the others.
const KiB = 1024
const t = useTestApp()
const a = useClient(t)
const b = useClient(t)
let port = 0
beforeAll(async () => {
  await t.app.listen({ port: 0, host: '127.0.0.1' })
  port = (t.app.server.address() as AddressInfo).port
})
afterAll(() => t.app.server.closeAllConnections())

/** A request whose body is sent in part and held open; `finish` sends the rest and answers its status. */
function heldBody(auth: Record<string, string>, path: string, bytes: number) {
  let req!: ClientRequest
  const status = new Promise<number>((resolve, reject) => {
    req = httpRequest(
      {
        host: '127.0.0.1',
        port,
        path,
        method: 'POST',
        headers: { ...auth, 'content-type': 'application/json', 'content-length': String(bytes) },
      },
      (res) => {
        res.resume()
        res.on('end', () => resolve(res.statusCode ?? 0))
      },
    )
    req.on('error', reject)
  })
  req.write('[')
  return { status, finish: () => req.end('1'.repeat(bytes - 1)) }
}

const post = (auth: Record<string, string>, url: string, bytes: number) =>
  t.inject({
    method: 'POST',
    url,
    headers: { ...auth, 'content-type': 'application/json' },
    payload: '['.padEnd(bytes, '1'),
  })

describe('route-specific body limits', () => {
  it('refuses a 1 MiB body with 413 where the schema needs far less, before reading it', async () => {
    const res = await post(a.auth, '/api/v1/contacts', 1024 * KiB)
    expect(res.statusCode).toBe(413)
    expect(res.json().errors[0].additionalCode).toBe('GEN-4130')
    expect((await post(a.auth, '/api/v1/contacts', 200 * KiB)).statusCode).toBe(413)
  })

  it('still reads the largest legitimate bodies: a package with long custom values, templates', async () => {
    // Invalid JSON of the size: past the limit it would be a 413, within it the parser's 400.
    expect((await post(a.auth, '/api/v1/packages', 700 * KiB)).statusCode).toBe(400)
    const settings = await t.inject({
      method: 'PUT',
      url: '/api/v1/notifications/settings',
      headers: { ...a.auth, 'content-type': 'application/json' },
      payload: '['.padEnd(1000 * KiB, '1'),
    })
    expect(settings.statusCode).toBe(400)
    expect((await post(a.auth, '/api/v1/contacts', 150 * KiB)).statusCode).toBe(400)
  })
})

describe('large bodies per subscription', () => {
  it('holds one subscription to one large body at a time (429 before its body is read), and another subscription is not held', async () => {
    t.clock.advance(60_000)
    const first = heldBody(a.auth, '/api/v1/packages', 500 * KiB)
    // Let it be read up to its body (its preParsing has run).
    await new Promise((r) => setTimeout(r, 200))
    const second = heldBody(a.auth, '/api/v1/packages', 500 * KiB)
    expect(await second.status).toBe(429)
    const other = heldBody(b.auth, '/api/v1/packages', 500 * KiB)
    other.finish()
    expect(await other.status).toBe(400)
    // Small bodies of the busy subscription are never held.
    expect((await post(a.auth, '/api/v1/contacts', 1 * KiB)).statusCode).toBe(400)
    first.finish()
    expect(await first.status).toBe(400)
    // Answered, it frees its place.
    expect((await post(a.auth, '/api/v1/packages', 100 * KiB)).statusCode).toBe(400)
  })

  it('holds one subscription to 2 MiB of large bodies a second: past it 429 with Retry-After, the others unaffected, and the budget refills', async () => {
    t.clock.advance(60_000)
    // A full budget: two bodies of 1000 KiB back to back (the largest the settings route takes).
    const settings = (auth: Record<string, string>) =>
      t.inject({
        method: 'PUT',
        url: '/api/v1/notifications/settings',
        headers: { ...auth, 'content-type': 'application/json' },
        payload: '['.padEnd(1000 * KiB, '1'),
      })
    expect((await settings(a.auth)).statusCode).toBe(400)
    expect((await settings(a.auth)).statusCode).toBe(400)
    const refused = await settings(a.auth)
    expect(refused.statusCode).toBe(429)
    expect(refused.headers['retry-after']).toBe('1')
    expect(refused.json().errors[0]).toMatchObject({
      additionalCode: 'GEN-4291',
      additionalInfo: `limit: ${2048 * KiB} bytes per second of bodies over ${64 * KiB} bytes`,
    })
    // A small body of the same subscription, and another subscription's large one, pass.
    expect((await post(a.auth, '/api/v1/contacts', 1 * KiB)).statusCode).toBe(400)
    expect((await settings(b.auth)).statusCode).toBe(400)
    // Half a second refills a MiB.
    t.clock.advance(500)
    expect((await settings(a.auth)).statusCode).toBe(400)
    expect((await settings(a.auth)).statusCode).toBe(429)
  })
})
