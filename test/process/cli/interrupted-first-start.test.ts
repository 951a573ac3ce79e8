import { spawn } from 'node:child_process'
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { runCli, startService } from '../../support/spawn-service.js'

// A first `mailroom serve` on the embedded database, stopped while it creates the database (the
// seconds of initdb), must leave a data directory that the next start opens and serves from.
const root = mkdtempSync(path.join(tmpdir(), 'mailroom-interrupted-'))
afterAll(() => rmSync(root, { recursive: true, force: true }))
const BIN = path.resolve(import.meta.dirname, '../../../bin/mailroom.js')
const env = (dataDir: string) => ({ MAILROOM_DATA_DIR: dataDir, LOG_LEVEL: 'warn', MAILROOM_ENV: 'development' })

/** Whether the database's files are being written: a directory pglite… (not the lock) with files in it. */
function creatingDatabase(dataDir: string): boolean {
  if (!existsSync(dataDir)) return false
  return readdirSync(dataDir).some(
    (e) => e.startsWith('pglite') && !e.endsWith('.lock') && readdirSync(path.join(dataDir, e)).length > 0,
  )
}

/** Starts a first `serve`, sends `signal` `afterMs` after the database's files started to appear, and returns its exit code. */
async function interruptFirstStart(dataDir: string, signal: NodeJS.Signals, afterMs: number): Promise<number | null> {
  const child = spawn(process.execPath, [BIN, 'serve'], {
    env: { ...process.env, PORT: '0', ...env(dataDir) },
    stdio: 'ignore',
  })
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)))
  const deadline = Date.now() + 120_000
  while (!creatingDatabase(dataDir) && child.exitCode === null) {
    if (Date.now() > deadline) throw new Error('the database was never created')
    await new Promise((r) => setTimeout(r, 10))
  }
  await new Promise((r) => setTimeout(r, afterMs))
  child.kill(signal)
  return exited
}

describe('an interrupted first start', () => {
  it.each([
    ['SIGKILL', 0],
    ['SIGKILL', 700],
    ['SIGTERM', 200],
    ['SIGINT', 200],
  ] as const)(
    '%s %i ms into creating the database: the next start opens it and serves',
    async (signal, afterMs) => {
      const dataDir = path.join(root, `${signal}-${afterMs}`)
      const code = await interruptFirstStart(dataDir, signal, afterMs)
      // SIGTERM/SIGINT: the handlers, installed before any work, let the step finish and exit cleanly.
      if (signal !== 'SIGKILL') expect(code).toBe(0)
      const svc = await startService(env(dataDir))
      try {
        expect((await fetch(`${svc.baseUrl}/readyz`)).status).toBe(200)
        expect(svc.output()).toContain('clientSecret:')
      } finally {
        expect(await svc.stop()).toBe(0)
      }
      expect(readdirSync(dataDir).filter((e) => e.includes('.init-') || e.endsWith('.tmp'))).toEqual([])
    },
    400_000,
  )

  it('a directory that does not open stops the start with what is wrong and what to do', () => {
    const dataDir = path.join(root, 'damaged')
    mkdirSync(path.join(dataDir, 'pglite'), { recursive: true })
    writeFileSync(path.join(dataDir, 'pglite', 'PG_VERSION'), '17\n')
    const r = runCli(['migrate'], env(dataDir))
    expect(r.status, r.stderr).toBe(74)
    expect(r.stderr).toContain(`the embedded database in ${path.join(dataDir, 'pglite')} cannot be opened`)
    expect(r.stderr).toContain('delete it')
    expect(r.stderr).not.toMatch(/\n\s+at /)
  })
})
