import { describe, expect, it } from 'vitest'
import { useTestApp } from '../support/use-test-app.js'

const t = useTestApp({ TOKEN_FAILURE_LIMIT: '3', TOKEN_FAILURE_WINDOW_SECONDS: '60' })

const TOKEN_URL = '/auth/api/v1/token'
const raw = (s: string) => `Basic ${Buffer.from(s, 'utf8').toString('base64')}`
let ip = 0
const from = () => `10.1.0.${++ip}`

describe('credentials with a NUL', () => {
  // `curl -u '%00:x'` sends the form-encoded NUL; a raw NUL byte is the other way in.
  // Each test its own id, so that the per-id count of one does not spill into the next.
  let n = 0
  const cases: [string, () => string][] = [
    ['form-encoded %00', () => raw(`%00${++n}:x`)],
    ['raw NUL', () => raw(`\u0000${++n}:x`)],
    ['NUL inside an id', () => raw(`mrc_a%00b${++n}:secret`)],
  ]
  for (const [label, makeHeader] of cases) {
    it(`are a 401 on the token endpoint, counted as a failure (${label})`, async () => {
      const address = from()
      const header = makeHeader()
      const statuses: number[] = []
      for (let i = 0; i < 4; i++) {
        const res = await t.inject({
          method: 'POST',
          url: TOKEN_URL,
          headers: { authorization: header },
          remoteAddress: address,
        })
        statuses.push(res.statusCode)
        if (res.statusCode === 401) expect(res.json().error).toBe('invalid_client')
      }
      // Three failures per address reach the limit of this app: the fourth is refused.
      expect(statuses).toEqual([401, 401, 401, 429])
    })

    it(`are a 401 on the webhook interface's Basic auth, counted as a failure (${label})`, async () => {
      const address = from()
      const header = makeHeader()
      const statuses: number[] = []
      for (let i = 0; i < 4; i++) {
        const res = await t.inject({
          method: 'GET',
          url: '/webhooks/tracking/api/v1/webhookConfig',
          headers: { authorization: header },
          remoteAddress: address,
        })
        statuses.push(res.statusCode)
      }
      expect(statuses).toEqual([401, 401, 401, 429])
    })
  }
})
