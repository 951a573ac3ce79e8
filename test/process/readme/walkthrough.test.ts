import { spawnSync } from 'node:child_process'
import { mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startService, type RunningService } from '../../support/spawn-service.js'
import { docFiles, shellBlocks, walkthrough } from '../../readme/blocks.js'

// Any 4xx/5xx or failed command stops a run; the text of README.md and docs/ is used as written.
const PREAMBLE = 'set -euo pipefail\ncurl() { command curl --fail-with-body "$@"; }\n'

// Its links are checked in the everyday tier (test/readme/links.test.ts).
describe('README', () => {
  describe('the curl walk-through', () => {
    let dir: string
    let service: RunningService
    beforeAll(async () => {
      dir = mkdtempSync(path.join(tmpdir(), 'mailroom-readme-'))
      // `npx mailroom` in the reader's directory, as in a project that installed mailroom (docs/backup.md runs it).
      mkdirSync(path.join(dir, 'node_modules/.bin'), { recursive: true })
      symlinkSync(
        path.resolve(import.meta.dirname, '../../../bin/mailroom.js'),
        path.join(dir, 'node_modules/.bin/mailroom'),
      )
      writeFileSync(path.join(dir, 'package.json'), '{"private": true}\n')
      // As a reader runs it: npm start in development (demo client in ./data), the blocks in the same directory.
      service = await startService({
        MAILROOM_ENV: 'development',
        MAILROOM_DATA_DIR: path.join(dir, 'data'),
        LOG_LEVEL: 'warn',
        MAILROOM_WEBHOOK_WORKER: 'false',
      })
    })
    afterAll(async () => {
      await service?.stop()
      rmSync(dir, { recursive: true, force: true })
    })

    it('runs twice in a row on the same database without an HTTP error', { timeout: 240_000 }, () => {
      const script = walkthrough()
      expect(script).toContain('curl')
      for (const run of [1, 2]) {
        const r = spawnSync('bash', ['-c', PREAMBLE + script], {
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

    // Each page's blocks follow the walk-through (its variables: $BASE, $H, $J, $RUN, $ADA…), twice as well.
    const pages = docFiles()
      .map((file) => ({ file, blocks: shellBlocks(file).filter((b) => b.noRun === undefined) }))
      .filter((p) => p.blocks.length > 0)
    it.each(pages)('runs the sh blocks of $file twice after it', { timeout: 240_000 }, ({ blocks }) => {
      const script = `${walkthrough()}\n${blocks.map((b) => `# ${b.file}:${b.line}\n${b.script}`).join('\n')}`
      for (const run of [1, 2]) {
        const r = spawnSync('bash', ['-c', PREAMBLE + script], {
          cwd: dir,
          env: { ...process.env, BASE: service.baseUrl },
          encoding: 'utf8',
          timeout: 120_000,
        })
        expect(r.status, `run ${run} failed:\n${r.stderr}\n${r.stdout.slice(-3000)}`).toBe(0)
      }
    })
  })
})
