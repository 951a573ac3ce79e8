import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { runCli, startService } from '../../support/spawn-service.js'
import { createTestDatabase } from '../../support/test-db.js'

// The real process, as a newcomer runs it: CLI commands, serve, SIGTERM, restart.
let dataDir: string
let env: Record<string, string>
let dropDb: (() => Promise<void>) | undefined

beforeAll(async () => {
  dataDir = mkdtempSync(path.join(tmpdir(), 'mailroom-cli-'))
  // The issuer derives from the public URL; pin it, as a deployment does, since each start takes a new port.
  env = {
    MAILROOM_DATA_DIR: dataDir,
    LOG_LEVEL: 'warn',
    MAILROOM_ENV: 'development',
    MAILROOM_PUBLIC_URL: 'http://mailroom.test',
  }
  if (process.env.TEST_DATABASE_URL) {
    const db = await createTestDatabase({ migrate: false })
    await db.handle.close()
    env.DATABASE_URL = db.url!
    dropDb = () => db.drop()
  }
})
afterAll(async () => {
  rmSync(dataDir, { recursive: true, force: true })
  await dropDb?.()
})

async function token(baseUrl: string, id: string, secret: string): Promise<Response> {
  return fetch(`${baseUrl}/auth/api/v1/token`, {
    method: 'POST',
    headers: { authorization: `Basic ${Buffer.from(`${id}:${secret}`).toString('base64')}` },
  })
}

function kidOf(jwt: string): string {
  return (JSON.parse(Buffer.from(jwt.split('.')[0]!, 'base64url').toString()) as { kid: string }).kid
}

describe('mailroom CLI and service', () => {
  it('migrates, creates clients, serves, shuts down gracefully and keeps clients and keys across a restart', async () => {
    const migrated = runCli(['migrate'], env)
    expect(migrated.status, migrated.stderr).toBe(0)

    const created = runCli(['clients', 'create', '--subscription', 'acme', '--name', 'front desk', '--json'], env)
    expect(created.status, created.stderr).toBe(0)
    const client = JSON.parse(created.stdout) as { clientId: string; clientSecret: string; subId: string }
    expect(Object.keys(client).sort()).toEqual(['clientId', 'clientSecret', 'subId'])

    const listed = runCli(['clients', 'list', '--json'], env)
    expect(JSON.parse(listed.stdout)).toEqual([
      expect.objectContaining({ clientId: client.clientId, subscription: 'acme', status: 'active' }),
    ])
    expect(listed.stdout).not.toContain(client.clientSecret)

    const first = await startService(env)
    const res = await token(first.baseUrl, client.clientId, client.clientSecret)
    expect(res.status).toBe(200)
    const { access_token: accessToken } = (await res.json()) as { access_token: string }
    // A demo client is not created when clients already exist.
    expect(first.output()).toContain('Clients exist')
    expect(await first.stop('SIGTERM')).toBe(0)

    const second = await startService(env)
    let stopped = false
    try {
      const session = await fetch(`${second.baseUrl}/api/v1/session`, {
        headers: { authorization: `Bearer ${accessToken}` },
      })
      expect(session.status).toBe(200)
      expect(await session.json()).toMatchObject({ clientId: client.clientId, subId: client.subId })

      if (!env.DATABASE_URL) {
        // The embedded database belongs to the running service: a second process is refused, not let loose on its pages.
        const refused = runCli(['clients', 'disable', client.clientId], env)
        expect(refused.status).toBe(75)
        expect(refused.stderr).toContain('in use by process')
        expect((await token(second.baseUrl, client.clientId, client.clientSecret)).status).toBe(200)
        expect(await second.stop('SIGINT')).toBe(0)
        stopped = true
      }
      const kidBefore = kidOf(accessToken)
      const rotated = runCli(['keys', 'rotate'], env)
      expect(rotated.status, rotated.stderr).toBe(0)
      const disabled = runCli(['clients', 'disable', client.clientId], env)
      expect(disabled.status, disabled.stderr).toBe(0)
      const other = JSON.parse(runCli(['clients', 'create', '--subscription', 'acme', '--json'], env).stdout) as {
        clientId: string
        clientSecret: string
      }

      const third = stopped ? await startService(env) : second
      try {
        // Within 30 s a disabled client gets no new token, and its live tokens are refused.
        const deadline = Date.now() + 30_000
        let statuses = [200, 200]
        while (statuses.includes(200) && Date.now() < deadline) {
          statuses = [
            (await token(third.baseUrl, client.clientId, client.clientSecret)).status,
            (await fetch(`${third.baseUrl}/api/v1/session`, { headers: { authorization: `Bearer ${accessToken}` } }))
              .status,
          ]
          if (statuses.includes(200)) await new Promise((r) => setTimeout(r, 500))
        }
        expect(statuses).toEqual([401, 401])
        // New tokens are signed with the rotated key: at once after a restart, within the key
        // schedule's minute when another process rotated under a running service.
        const kidDeadline = Date.now() + 75_000
        let kid = kidBefore
        while (kid === kidBefore && Date.now() < kidDeadline) {
          const fresh = (await (await token(third.baseUrl, other.clientId, other.clientSecret)).json()) as {
            access_token: string
          }
          kid = kidOf(fresh.access_token)
          if (kid === kidBefore) await new Promise((r) => setTimeout(r, 1000))
        }
        expect(kid).not.toBe(kidBefore)
      } finally {
        if (stopped) expect(await third.stop('SIGTERM')).toBe(0)
      }
    } finally {
      if (!stopped) expect(await second.stop('SIGINT')).toBe(0)
    }
  })

  it('exits non-zero listing every bad setting', () => {
    const r = runCli(['migrate'], { ...env, PORT: 'x', MAILROOM_ENV: 'nope' })
    expect(r.status).toBe(78)
    expect(r.stderr).toContain('PORT')
    expect(r.stderr).toContain('MAILROOM_ENV')
  })

  it('refuses unknown commands with usage', () => {
    const r = runCli(['frobnicate'], env)
    expect(r.status).toBe(2)
    expect(r.stderr).toContain('usage: mailroom')
  })
})
