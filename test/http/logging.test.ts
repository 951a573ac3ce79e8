import { describe, expect, it } from 'vitest'
import { basic } from '../support/build-test-app.js'
import { useTestApp, useClient } from '../support/use-test-app.js'

const lines: string[] = []
const t = useTestApp({}, { logger: { level: 'info', stream: { write: (line: string) => lines.push(line) } } })
const me = useClient(t)

/** Everything logged while `run` runs, as text, and as parsed lines. */
async function logged(run: () => Promise<unknown>) {
  lines.length = 0
  await run()
  return { text: lines.join(''), entries: lines.map((l) => JSON.parse(l) as Record<string, unknown>) }
}

describe('request logs', () => {
  it('name the route and its ids, and the query keys without their values', async () => {
    const contact = await t.inject({
      method: 'POST',
      url: '/api/v1/contacts',
      headers: me.auth,
      payload: { name: 'Ada Lovelace', contactType: 'RECEIVER', email: 'ada@example.com' },
    })
    expect(contact.statusCode, contact.body).toBe(201)
    const contactId = contact.json().contactId as string
    const { text, entries } = await logged(async () => {
      await t.inject({ method: 'GET', url: '/api/v1/contacts?query=Lovelace&limit=5', headers: me.auth })
      await t.inject({
        method: 'GET',
        url: '/api/v1/packages?search=Ada%20Lovelace&secondTierSearchSelected=true',
        headers: me.auth,
      })
      await t.inject({
        method: 'GET',
        url: `/api/v1/packages/tracking/decode?trackingNumber=${encodeURIComponent('[)>\u001e01\u001dAda Lovelace 12 Main St')}`,
        headers: me.auth,
      })
      await t.inject({ method: 'GET', url: `/api/v1/contacts/${contactId}`, headers: me.auth })
      await t.inject({ method: 'GET', url: '/api/v1/packages/tracking/1ZLOVELACE0001', headers: me.auth })
    })
    for (const secret of ['Lovelace', 'Ada', me.token, '1ZLOVELACE0001']) expect(text).not.toContain(secret)
    const urls = entries.filter((e) => e.msg === 'incoming request').map((e) => (e.req as { url: string }).url)
    expect(urls).toEqual([
      '/api/v1/contacts?query=[redacted]&limit=[redacted]',
      '/api/v1/packages?search=[redacted]&secondTierSearchSelected=[redacted]',
      '/api/v1/packages/tracking/decode?trackingNumber=[redacted]',
      `/api/v1/contacts/${contactId}`,
      '/api/v1/packages/tracking/{trackingNumber}',
    ])
    const first = entries.find((e) => e.msg === 'incoming request')!
    expect(first.req).toEqual({ method: 'GET', url: urls[0], remoteAddress: '127.0.0.1' })
    expect(first.correlationID).toEqual(expect.any(String))
  })

  it('never carry a credential sent in the URL or the headers, nor an unmatched path', async () => {
    const { text } = await logged(async () => {
      await t.inject({ method: 'GET', url: `/api/v1/inboundsites?access_token=${me.token}` })
      await t.inject({
        method: 'POST',
        url: `/auth/api/v1/token?client_secret=${me.clientSecret}`,
        headers: { authorization: basic(me.clientId, me.clientSecret) },
      })
      await t.inject({ method: 'GET', url: `/no/such/Lovelace/${me.clientSecret}` })
      await t.inject({ method: 'GET', url: '/api/v1/inboundsites', headers: me.auth })
    })
    expect(text).toContain('access_token=[redacted]')
    expect(text).toContain('(no route)')
    for (const secret of [me.token, me.clientSecret, 'Lovelace', basic(me.clientId, me.clientSecret).slice(6)])
      expect(text).not.toContain(secret)
  })

  it('blank credentials inside any logged object', async () => {
    const { text } = await logged(async () => {
      t.app.log.info(
        {
          authParams: { password: 'hunter2-password', apiKey: 'key-0001' },
          clientSecret: 'cs-0001',
          err: { message: 'duplicate', detail: 'Key (name)=(Ada Lovelace) already exists.' },
        },
        'something',
      )
    })
    expect(text).toContain('something')
    for (const secret of ['hunter2-password', 'key-0001', 'cs-0001', 'Ada Lovelace']) expect(text).not.toContain(secret)
  })
})
