import Fastify from 'fastify'
import { connect } from 'node:net'
import { beforeAll, describe, expect, it } from 'vitest'
import { registerClosingAnswer } from '../../src/platform/http/framework-errors.js'
import { useTestApp } from '../support/use-test-app.js'

const t = useTestApp()
let port: number
beforeAll(async () => {
  await t.app.listen({ port: 0, host: '127.0.0.1' })
  port = (t.app.server.address() as { port: number }).port
})

const SIX = [
  'errorCode',
  'errorDescription',
  'additionalCode',
  'additionalInfo',
  'additionalParameters',
  'correlationID',
]

function expectModel(body: unknown, additionalCode: string) {
  const items = (body as { errors: Array<Record<string, unknown>> }).errors
  expect(items.length).toBeGreaterThan(0)
  for (const i of items) {
    expect(Object.keys(i).sort()).toEqual([...SIX].sort())
    for (const f of SIX) expect(typeof i[f]).toBe('string')
  }
  expect(items[0]!.additionalCode).toBe(additionalCode)
}

/** Writes raw bytes and reads the whole answer (the server closes the connection). */
function raw(text: string): Promise<{ status: number; headers: string; body: string }> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1', () => socket.write(text))
    let out = ''
    socket.on('data', (d: Buffer) => (out += d.toString()))
    socket.on('error', reject)
    socket.on('close', () => {
      const [head, body] = out.split('\r\n\r\n') as [string, string]
      resolve({ status: Number(head.split(' ')[1]), headers: head, body })
    })
  })
}

describe('every error answered in the error model, all six fields present', () => {
  it('a field error names the field and has an empty additionalInfo', async () => {
    const c = await t.newClient()
    const res = await t.inject({ method: 'GET', url: '/api/v1/packages/p1?type=NOPE', headers: c.auth })
    expect(res.statusCode).toBe(400)
    expectModel(res.json(), 'GEN-4000')
    expect(res.json().errors[0]).toMatchObject({ additionalParameters: 'type', additionalInfo: '' })
  })

  it('an unknown route: 404, additionalParameters empty', async () => {
    const res = await t.inject({ method: 'GET', url: '/api/v1/nothing-here' })
    expect(res.statusCode).toBe(404)
    expectModel(res.json(), 'GEN-4040')
    expect(res.json().errors[0].additionalParameters).toBe('')
  })

  it('a known path with another method: 405 with Allow', async () => {
    const c = await t.newClient()
    const res = await t.inject({ method: 'DELETE', url: '/api/v1/packages', headers: c.auth })
    expect(res.statusCode).toBe(405)
    expect(res.headers.allow).toBe('GET, HEAD, POST')
    expectModel(res.json(), 'GEN-4050')
    const param = await t.inject({ method: 'POST', url: '/api/v1/packages/p1/archive', headers: c.auth })
    expect(param.statusCode).toBe(405)
    expect(param.headers.allow).toBe('PATCH')
    // A `.` segment is resolved before routing, as a client resolves it: `/clients/./secret` is the
    // path `/clients/secret`, a client's, which has no POST (the fuzzer's find).
    const dot = await t.inject({ method: 'POST', url: '/api/v1/clients/./secret', headers: c.auth })
    expect(dot.statusCode, dot.body).toBe(405)
    expect(dot.headers.allow).not.toContain('POST')
    expectModel(dot.json(), 'GEN-4050')
  })

  it('bad URL encoding: 400', async () => {
    const res = await t.inject({
      method: 'GET',
      url: '/api/v1/packages/%E0%A4%A?type=DETAILED',
      headers: { 'x-correlation-id': 'bad-url-1' },
    })
    expect(res.statusCode).toBe(400)
    expect(res.headers['x-correlation-id']).toBe('bad-url-1')
    expectModel(res.json(), 'GEN-4002')
    expect(res.json().errors[0].correlationID).toBe('bad-url-1')
  })

  it('an over-long path parameter: 414', async () => {
    const res = await t.inject({ method: 'GET', url: `/api/v1/packages/${'a'.repeat(300)}?type=DETAILED` })
    expect(res.statusCode).toBe(414)
    expectModel(res.json(), 'GEN-4140')
  })

  it('oversized headers: 431, answered by the server before any route', async () => {
    const res = await raw(`GET /api/v1/session HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(20_000)}\r\n\r\n`)
    expect(res.status).toBe(431)
    expect(res.headers).toMatch(/x-correlation-id: [0-9a-f-]{36}/i)
    expectModel(JSON.parse(res.body), 'GEN-4310')
  })

  it('a request the HTTP parser refuses: 400', async () => {
    const res = await raw('GET /api/v1/session HTTP/1.1\r\nHost: x\r\nContent-Length: abc\r\n\r\n')
    expect(res.status).toBe(400)
    expectModel(JSON.parse(res.body), 'GEN-4003')
  })

  it('malformed JSON and an unsupported content type', async () => {
    const c = await t.newClient()
    const bad = await t.inject({
      method: 'POST',
      url: '/api/v1/contacts',
      headers: { ...c.auth, 'content-type': 'application/json' },
      payload: '{"name":',
    })
    expect(bad.statusCode).toBe(400)
    expectModel(bad.json(), 'GEN-4001')
    const xml = await t.inject({
      method: 'POST',
      url: '/api/v1/contacts',
      headers: { ...c.auth, 'content-type': 'application/xml' },
      payload: '<a/>',
    })
    expect(xml.statusCode).toBe(415)
    expectModel(xml.json(), 'GEN-4150')
  })
})

describe('a closing server', () => {
  it('answers a request still arriving on an open connection with 503 in the error model', async () => {
    const app = Fastify({ logger: false, return503OnClosing: false })
    registerClosingAnswer(app)
    let release!: () => void
    const held = new Promise<void>((r) => (release = r))
    app.get('/slow', async () => {
      await held
      return { ok: true }
    })
    await app.listen({ port: 0, host: '127.0.0.1' })
    const socket = connect((app.server.address() as { port: number }).port, '127.0.0.1')
    let out = ''
    socket.on('data', (d: Buffer) => (out += d.toString()))
    // The first request is in flight when closing begins; the second arrives on its connection after.
    socket.write('GET /slow HTTP/1.1\r\nHost: x\r\n\r\n')
    await new Promise((r) => setTimeout(r, 100))
    const closed = app.close()
    await new Promise((r) => setTimeout(r, 50))
    socket.write('GET /slow HTTP/1.1\r\nHost: x\r\n\r\n')
    await new Promise((r) => setTimeout(r, 50))
    release()
    await new Promise((r) => socket.on('close', r))
    await closed
    const second = out.slice(out.indexOf('HTTP/1.1', 10))
    expect(second).toMatch(/^HTTP\/1.1 503/)
    expectModel(JSON.parse(second.slice(second.indexOf('\r\n\r\n') + 4)), 'GEN-5030')
  })
})
