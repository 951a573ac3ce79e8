import { beforeAll, describe, expect, it } from 'vitest'
import { basic } from '../support/build-test-app.js'
import { createUser } from '../support/console-session.js'
import { api, trackingNumber } from '../support/factories.js'
import { useClient, useTestApp } from '../support/use-test-app.js'

// Issue 26.9: pickup codes, passwords, client secrets, tokens and session ids never reach a log line,
// whatever the request's outcome. The pino output of the app, captured line by line.
const lines: string[] = []
const t = useTestApp({}, { logger: { level: 'trace', stream: { write: (line: string) => lines.push(line) } } })
const desk = useClient(t)
const other = useClient(t)

async function logged(run: () => Promise<unknown>): Promise<string> {
  lines.length = 0
  await run()
  return lines.join('')
}

let a: ReturnType<typeof api>
beforeAll(() => {
  a = api(t, desk)
})

describe('secrets in logs', () => {
  it('never logs a pickup code: a wrong one, another subscription’s, a used one', async () => {
    const b = api(t, other)
    const theirContact = await b.contact('RECEIVER', 'Their Tom')
    const theirs = (
      await b.ok('POST', '/api/v1/packages', {
        package: { trackingNumber: trackingNumber(), receiver: { contactId: theirContact } },
      })
    ).packageId
    const theirCode = (await b.ok('GET', `/api/v1/packages/${theirs}?type=DETAILED`)).pickupCode as string
    const contactId = await a.contact('RECEIVER', 'Logged Lou')
    const mine = (
      await a.ok('POST', '/api/v1/packages', { package: { trackingNumber: trackingNumber(), receiver: { contactId } } })
    ).packageId
    const myCode = (await a.ok('GET', `/api/v1/packages/${mine}?type=DETAILED`)).pickupCode as string
    expect((await a.call('POST', '/api/v1/pickups', { pickupCode: myCode, typedSignature: 'Me' })).statusCode).toBe(201)
    const wrong = ['ZZZZZZ', 'YYYYYY'].find((c) => c !== myCode && c !== theirCode)!
    const text = await logged(async () => {
      for (const code of [wrong, theirCode, myCode]) {
        const res = await a.call('POST', '/api/v1/pickups', { pickupCode: code })
        expect(res.statusCode).toBe(400)
        expect(res.body).not.toContain(code)
      }
    })
    expect(text).toContain('request refused')
    for (const code of [wrong, theirCode, myCode]) expect(text).not.toContain(code)
  })

  it('never logs a password, a session cookie, a CSRF token, a client secret or an access token', async () => {
    await createUser(t, desk, { email: 'logged@example.com', role: 'clerk' })
    const text = await logged(async () => {
      const wrongPassword = await t.inject({
        method: 'POST',
        url: '/console/api/session',
        payload: { email: 'logged@example.com', password: 'my secret wrong password' },
      })
      expect(wrongPassword.statusCode).toBe(401)
      const ok = await t.inject({
        method: 'POST',
        url: '/console/api/session',
        payload: { email: 'logged@example.com', password: 'correct horse battery' },
      })
      expect(ok.statusCode).toBe(200)
      lines.push(`MARK session ${ok.cookies.length}\n`)
      secrets.push(...ok.cookies.map((c) => c.value), ok.json().csrfToken as string)
      const token = await t.inject({
        method: 'POST',
        url: '/auth/api/v1/token',
        headers: { authorization: basic(desk.clientId, desk.clientSecret) },
      })
      expect(token.statusCode).toBe(200)
      secrets.push(token.json().access_token as string)
      const wrongSecret = await t.inject({
        method: 'POST',
        url: '/auth/api/v1/token',
        payload: { client_id: desk.clientId, client_secret: 'not the secret at all' },
      })
      expect(wrongSecret.statusCode).toBe(401)
    })
    expect(text).toContain('MARK session')
    for (const s of [
      'my secret wrong password',
      'correct horse battery',
      desk.clientSecret,
      'not the secret at all',
      ...secrets,
    ])
      expect(text).not.toContain(s)
  })
})

const secrets: string[] = []
