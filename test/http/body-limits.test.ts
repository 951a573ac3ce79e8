import { request as httpRequest, type ClientRequest } from 'node:http'
import type { AddressInfo } from 'node:net'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { useClient, useTestApp } from '../support/use-test-app.js'

// Issue 26: large bad bodies. Each route accepts what its schema can need, and one subscription
// parses at most two large bodies at once, so its loops of 1 MiB bodies cannot starve the others.
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
  it('holds one subscription to two large bodies at once (429), and another subscription is not held', async () => {
    const first = heldBody(a.auth, '/api/v1/packages', 500 * KiB)
    const second = heldBody(a.auth, '/api/v1/packages', 500 * KiB)
    // Let both be read up to their body (their preParsing has run).
    await new Promise((r) => setTimeout(r, 200))
    const third = heldBody(a.auth, '/api/v1/packages', 500 * KiB)
    expect(await third.status).toBe(429)
    const other = heldBody(b.auth, '/api/v1/packages', 500 * KiB)
    other.finish()
    expect(await other.status).toBe(400)
    // Small bodies of the busy subscription are never held.
    expect((await post(a.auth, '/api/v1/contacts', 1 * KiB)).statusCode).toBe(400)
    first.finish()
    second.finish()
    expect([await first.status, await second.status]).toEqual([400, 400])
    // Answered, they free their places.
    expect((await post(a.auth, '/api/v1/packages', 100 * KiB)).statusCode).toBe(400)
  })
})
