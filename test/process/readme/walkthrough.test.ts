import { spawnSync } from 'node:child_process'
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startService, type RunningService } from '../../support/spawn-service.js'

const ROOT = path.resolve(import.meta.dirname, '../../..')
const README = readFileSync(path.join(ROOT, 'README.md'), 'utf8')

/** The ```sh blocks of the walk-through section, in order, verbatim. */
function walkthrough(): string {
  const section = README.slice(README.indexOf('## Walk-through with curl'))
  const body = section.slice(0, section.indexOf('\n## ', 5))
  return [...body.matchAll(/```sh\n([\s\S]*?)```/g)].map((m) => m[1]).join('\n')
}

// Its links are checked in the everyday tier (test/readme/links.test.ts).
describe('README', () => {
  describe('the curl walk-through', () => {
    let dir: string
    let service: RunningService
    beforeAll(async () => {
      dir = mkdtempSync(path.join(tmpdir(), 'mailroom-readme-'))
      // As a reader runs it: npm start in development (demo client in ./data), the blocks in the same directory.
      service = await startService(
        {
          MAILROOM_ENV: 'development',
          MAILROOM_DATA_DIR: path.join(dir, 'data'),
          LOG_LEVEL: 'warn',
          MAILROOM_WEBHOOK_WORKER: 'false',
        },
        { readyTimeoutMs: 110_000 },
      )
    }, 120_000)
    afterAll(async () => {
      await service?.stop()
      rmSync(dir, { recursive: true, force: true })
    })

    it('runs twice in a row on the same database without an HTTP error', { timeout: 240_000 }, () => {
      const script = walkthrough()
      expect(script).toContain('curl')
      // Any 4xx/5xx or failed command stops the run; the README's text is used as written.
      const preamble = 'set -euo pipefail\ncurl() { command curl --fail-with-body "$@"; }\n'
      for (const run of [1, 2]) {
        const r = spawnSync('bash', ['-c', preamble + script], {
          cwd: dir,
          env: { ...process.env, BASE: service.baseUrl },
          encoding: 'utf8',
          timeout: 120_000,
        })
        expect(r.status, `run ${run} failed:\n${r.stderr}\n${r.stdout.slice(-3000)}`).toBe(0)
        expect(readFileSync(path.join(dir, 'archived.csv'), 'utf8')).toMatch(
          /^Tracking #,Recipient,Status,Delivered at\r\n1Z999AA10123456784,Ada Lovelace,ARCHIVED,/,
        )
      }
    })
  })
})
