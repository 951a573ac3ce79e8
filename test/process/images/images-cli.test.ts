import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { buildApp } from '../../../src/app/app.js'
import { loadConfig } from '../../../src/app/config.js'
import { createContext } from '../../../src/app/context.js'
import { openDatabase, type DatabaseHandle } from '../../../src/platform/db/database.js'
import { migrateToLatest } from '../../../src/platform/db/migrate.js'
import { LocalDirBlobStore } from '../../../src/images/store/blob-store.js'
import { localImagesDir } from '../../../src/images/store/blob-stores.js'
import { ManualClock } from '../../../src/platform/kit/clock.js'
import { TEST_SECRET } from '../../support/build-test-app.js'
import { runCli } from '../../support/spawn-service.js'
import { createTestDatabase } from '../../support/test-db.js'
import { jpegDataUrl, jpegOf } from '../../images/processes.js'

// `mailroom images migrate` as an operator runs it, on the deployment's own database: the embedded
// one in the data directory, or the PostgreSQL database of TEST_DATABASE_URL.
const dataDir = mkdtempSync(path.join(tmpdir(), 'mailroom-images-cli-'))
let pgDb: Awaited<ReturnType<typeof createTestDatabase>> | undefined
const env = () => ({
  MAILROOM_DATA_DIR: dataDir,
  MAILROOM_SECRET: TEST_SECRET,
  LOG_LEVEL: 'silent',
  ...(pgDb ? { DATABASE_URL: pgDb.url! } : {}),
})
const open = async (): Promise<DatabaseHandle> => {
  if (pgDb) return { ...pgDb.handle, close: async () => {} }
  const handle = await openDatabase({ kind: 'pglite', dir: path.join(dataDir, 'pglite') })
  await migrateToLatest(handle.db)
  return handle
}
const bytes = jpegOf(400_000)
let key: string

beforeAll(async () => {
  if (process.env.TEST_DATABASE_URL) pgDb = await createTestDatabase()
  // Before the upgrade: one image kept in the data directory.
  const database = await open()
  try {
    const ctx = createContext({
      config: loadConfig({ ...env(), BLOB_STORE: 'local' }),
      database,
      masterSecret: TEST_SECRET,
      clock: new ManualClock(new Date()),
    })
    await ctx.keys.init()
    const client = await ctx.clients.createClient({ subscription: 'cli' })
    const { access_token: token } = await ctx.tokens.issueToken({
      clientId: client.clientId,
      subId: client.subId,
      status: 'active',
    })
    const app = await buildApp(ctx, { logger: false })
    const res = await app.inject({
      method: 'POST',
      url: '/api/v1/packages/images',
      headers: { authorization: `Bearer ${token}` },
      payload: { base64: jpegDataUrl(bytes) },
    })
    expect(res.statusCode).toBe(200)
    key = `${client.subId}/${res.json().imageId}`
    await app.close()
  } finally {
    await database.close()
  }
})
afterAll(async () => {
  await pgDb?.drop()
  rmSync(dataDir, { recursive: true, force: true })
})

describe('mailroom images migrate', () => {
  it('refuses a store it does not know, and a move to where the images already are', () => {
    const bad = runCli(['images', 'migrate', '--to', 'floppy'], env())
    expect(bad.status).toBe(2)
    expect(bad.stderr).toMatch(/--to must be one of local, postgres, s3/)
    const same = runCli(['images', 'migrate'], { ...env(), BLOB_STORE: 'local' })
    expect(same.status).toBe(2)
    expect(same.stderr).toMatch(/already in the local store/)
  })

  it('moves the local images into the database, prints the counts, and a second run finds nothing left to move', async () => {
    const first = runCli(['images', 'migrate', '--to', 'postgres'], env())
    expect(first.stderr + first.stdout).toMatch(
      /images local → postgres: moved 1, already there 0, missing 0, corrupt \(kept in local\) 0, removed from local 1/,
    )
    expect(first.status).toBe(0)
    expect(await new LocalDirBlobStore(localImagesDir(dataDir)).has(key)).toBe(false)
    const database = await open()
    try {
      const parts = await database.db
        .selectFrom('image_blobs')
        .select(['part', 'bytes'])
        .where('storage_key', '=', key)
        .orderBy('part')
        .execute()
      expect(Buffer.concat(parts.map((p) => p.bytes)).equals(bytes)).toBe(true)
    } finally {
      await database.close()
    }
    const again = runCli(['images', 'migrate', '--to', 'postgres'], env())
    expect(again.stdout).toMatch(
      /moved 0, already there 1, missing 0, corrupt \(kept in local\) 0, removed from local 0/,
    )
    expect(again.status).toBe(0)
  })
})
