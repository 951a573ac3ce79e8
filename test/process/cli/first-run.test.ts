import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { afterAll, expect, it } from 'vitest'
import { startService } from '../../support/spawn-service.js'

const dataDir = mkdtempSync(path.join(tmpdir(), 'mailroom-first-'))
afterAll(() => rmSync(dataDir, { recursive: true, force: true }))

it('on a first start in development, creates a demo client and prints working credentials and curl commands', async () => {
  const svc = await startService({ MAILROOM_DATA_DIR: dataDir, LOG_LEVEL: 'warn', MAILROOM_ENV: 'development' })
  try {
    const out = svc.output()
    const id = /clientId:\s+(\S+)/.exec(out)?.[1]
    const secret = /clientSecret:\s+(\S+)/.exec(out)?.[1]
    expect(id && secret, out).toBeTruthy()
    expect(out).toContain('/auth/api/v1/token')
    expect(out).toContain('/api/v1/session')
    const res = await fetch(`${svc.baseUrl}/auth/api/v1/token`, {
      method: 'POST',
      headers: { authorization: `Basic ${Buffer.from(`${id}:${secret}`).toString('base64')}` },
    })
    expect(res.status).toBe(200)
  } finally {
    expect(await svc.stop()).toBe(0)
  }
})
