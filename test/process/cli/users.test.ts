import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { afterAll, beforeAll, expect, it } from 'vitest'
import { runCli } from '../../support/spawn-service.js'
import { createTestDatabase } from '../../support/test-db.js'

// `mailroom users …` as an operator runs it: the command is wired into the binary (its logic is
// tested in test/users/users-cli.test.ts against the test app).
let dataDir: string
let env: Record<string, string>
let dropDb: (() => Promise<void>) | undefined

beforeAll(async () => {
  dataDir = mkdtempSync(path.join(tmpdir(), 'mailroom-users-cli-'))
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

it('creates, lists and disables a console user from the command line', () => {
  const created = runCli(
    ['users', 'create', '--subscription', 'acme', '--email', 'desk@acme.test', '--role', 'clerk'],
    env,
  )
  expect(created.status, created.stderr).toBe(0)
  expect(created.stdout).toMatch(/password: [A-Za-z0-9_-]{20}\n/)
  const userId = /userId:\s+(usr_\S+)/.exec(created.stdout)![1]!

  const listed = runCli(['users', 'list', '--json'], env)
  expect(listed.status, listed.stderr).toBe(0)
  expect(JSON.parse(listed.stdout)).toEqual([
    expect.objectContaining({ userId, email: 'desk@acme.test', role: 'clerk', subscription: 'acme', status: 'active' }),
  ])

  const disabled = runCli(['users', 'disable', userId], env)
  expect(disabled.status, disabled.stderr).toBe(0)
  expect(JSON.parse(runCli(['users', 'list', '--json'], env).stdout)[0].status).toBe('disabled')

  const bad = runCli(['users', 'create', '--subscription', 'acme', '--email', 'x@acme.test', '--role', 'boss'], env)
  expect(bad.status).toBe(2)
  expect(bad.stderr).toContain('--role')
})
