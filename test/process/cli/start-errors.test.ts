import { existsSync, mkdtempSync, rmSync } from 'node:fs'
import { createServer, type Server } from 'node:net'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { runCli } from '../../support/spawn-service.js'

// What a newcomer meets first: `npx mailroom` alone, and `npm start` on a port something else holds.
let dir: string
beforeAll(() => {
  dir = mkdtempSync(path.join(tmpdir(), 'mailroom-start-'))
})
afterAll(() => rmSync(dir, { recursive: true, force: true }))

describe('mailroom with no command', () => {
  it('prints the help and starts nothing', () => {
    const dataDir = path.join(dir, 'no-command')
    const r = runCli([], { MAILROOM_DATA_DIR: dataDir })
    expect(r.status, r.stderr).toBe(0)
    expect(r.stdout).toMatch(/^mailroom: package receiving service/)
    expect(r.stdout).toContain('serve ')
    expect(existsSync(dataDir)).toBe(false)
  })
})

describe('serve on a port already in use', () => {
  let holder: Server
  let port: number
  beforeAll(async () => {
    holder = createServer()
    await new Promise<void>((resolve) => holder.listen(0, '127.0.0.1', resolve))
    port = (holder.address() as { port: number }).port
  })
  afterAll(() => new Promise<void>((resolve) => holder.close(() => resolve())))

  it('is one line on stderr and exit 78, before any data directory is created', () => {
    const dataDir = path.join(dir, 'busy-port')
    const r = runCli(['serve'], { MAILROOM_DATA_DIR: dataDir, PORT: String(port), HOST: '127.0.0.1' })
    expect(r.status, r.stderr).toBe(78)
    expect(r.stderr.trimEnd().split('\n')).toEqual([
      `mailroom: 127.0.0.1:${port} is already in use (PORT=${port}, HOST=127.0.0.1): stop what holds it or choose another PORT`,
    ])
    expect(r.stdout).toBe('')
    expect(existsSync(dataDir)).toBe(false)
  })
})
