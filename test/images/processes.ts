import type { FastifyInstance } from 'fastify'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { buildApp } from '../../src/app/app.js'
import { loadConfig } from '../../src/app/config.js'
import { createContext, type AppContext } from '../../src/app/context.js'
import { TEST_SECRET, type TestApp, type TestClient } from '../support/build-test-app.js'

/**
 * Another API process of the deployment `t` belongs to: the same database, but its own data
 * directory (another machine's disk) and the store `env` configures.
 */
export async function otherProcess(t: TestApp, env: Record<string, string>, dataDir?: string) {
  const dir = dataDir ?? mkdtempSync(path.join(tmpdir(), 'mailroom-other-'))
  const config = loadConfig({
    MAILROOM_ENV: 'development',
    MAILROOM_DATA_DIR: dir,
    MAILROOM_SECRET: TEST_SECRET,
    LOG_LEVEL: 'silent',
    IMAGE_MAX_BYTES: String(t.config.imageMaxBytes),
    ...env,
  })
  const ctx: AppContext = createContext({ config, database: t.ctx.database, masterSecret: TEST_SECRET, clock: t.clock })
  await ctx.keys.init()
  const app: FastifyInstance = await buildApp(ctx, { logger: false })
  await app.ready()
  return {
    app,
    ctx,
    dataDir: dir,
    call: (client: TestClient, method: 'GET' | 'POST', url: string, payload?: unknown) =>
      app.inject({ method, url, payload: payload as never, headers: client.auth }),
    async close() {
      await app.close()
      if (!dataDir) rmSync(dir, { recursive: true, force: true })
    },
  }
}

/** A JPEG of `size` bytes (a JPEG's signature, then noise): what a label photo weighs. */
export function jpegOf(size: number): Buffer {
  const bytes = Buffer.alloc(size)
  for (let i = 0; i < size; i += 4)
    bytes.writeUInt32LE((Math.imul(i, 2654435761) ^ (i >>> 7)) >>> 0, Math.min(i, size - 4))
  bytes.set([0xff, 0xd8, 0xff, 0xe0], 0)
  return bytes
}

export const jpegDataUrl = (bytes: Buffer) => `data:image/jpeg;base64,${bytes.toString('base64')}`
