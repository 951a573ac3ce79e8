import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { afterAll, beforeAll, expect, it } from 'vitest'
import { runCli } from '../../support/spawn-service.js'
import { createTestDatabase } from '../../support/test-db.js'

// `mailroom scim-token create` as an operator runs it: a token printed once, kept only as a hash.
let dataDir: string
let env: Record<string, string>
let dropDb: (() => Promise<void>) | undefined

beforeAll(async () => {
  dataDir = mkdtempSync(path.join(tmpdir(), 'mailroom-scim-cli-'))
  env = { MAILROOM_DATA_DIR: dataDir, LOG_LEVEL: 'warn', MAILROOM_ENV: 'development' }
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

it('creates a SCIM token for a subscription from the command line', () => {
  const typo = runCli(['scim-token', 'create', '--subscription', 'acme'], env)
  expect(typo.status).toBe(1)
  expect(typo.stderr.trim().split('\n')).toEqual([expect.stringMatching(/no subscription named "acme"/)])
  expect(runCli(['clients', 'create', '--subscription', 'acme', '--json'], env).status).toBe(0)
  const created = runCli(['scim-token', 'create', '--subscription', 'acme', '--name', 'Okta', '--json'], env)
  expect(created.status, created.stderr).toBe(0)
  expect(JSON.parse(created.stdout)).toEqual({
    tokenId: expect.stringMatching(/^sct_/),
    name: 'Okta',
    createdAt: expect.any(String),
    token: expect.stringMatching(/^mrscim_sct_\S+\.\S+$/),
    scimUrl: expect.stringMatching(/\/scim\/v2$/),
  })
  const bad = runCli(['scim-token', 'create'], env)
  expect(bad.status).not.toBe(0)
  expect(bad.stderr).toMatch(/--subscription/)
})
