import { describe, expect, it } from 'vitest'
import { existsSync } from 'node:fs'
import path from 'node:path'
import { ConfigError, loadConfig } from '../../src/app/config.js'
import { LocalDirBlobStore } from '../../src/images/store/blob-store.js'
import { localImagesDir } from '../../src/images/store/blob-stores.js'
import { moveImages } from '../../src/images/store/migrate-blobs.js'
import { PostgresBlobStore } from '../../src/images/store/postgres-blob-store.js'
import { useClient, useTestApp } from '../support/use-test-app.js'
import { jpegDataUrl, jpegOf, otherProcess } from './processes.js'

// Issue 16.1: N API processes on one PostgreSQL serve every image, whichever process stored it.
const t = useTestApp({ IMAGE_MAX_BYTES: String(2 * 1024 * 1024) })
const me = useClient(t)

const upload = async (
  call: (method: 'POST', url: string, payload: unknown) => Promise<{ statusCode: number; json(): any }>,
  bytes: Buffer,
) => {
  const res = await call('POST', '/api/v1/packages/images', { base64: jpegDataUrl(bytes) })
  expect(res.statusCode).toBe(200)
  return res.json() as { imageId: string; tempURL: string }
}

describe('BLOB_STORE configuration', () => {
  const base = { MAILROOM_SECRET: 'x'.repeat(32) }
  it('chooses auto by default, s3 when BLOB_STORE_URL is set, and parses the URL', () => {
    expect(loadConfig(base).blobStore).toEqual({ kind: 'auto' })
    expect(loadConfig({ ...base, BLOB_STORE: 'local' }).blobStore).toEqual({ kind: 'local' })
    expect(
      loadConfig({
        ...base,
        BLOB_STORE_URL: 's3://label-photos/mailroom/prod?endpoint=http://127.0.0.1:9000&region=eu-west-1',
        BLOB_STORE_ACCESS_KEY_ID: 'AKIA1',
        BLOB_STORE_SECRET_ACCESS_KEY: 'shh',
      }).blobStore,
    ).toEqual({
      kind: 's3',
      bucket: 'label-photos',
      prefix: 'mailroom/prod/',
      endpoint: 'http://127.0.0.1:9000',
      region: 'eu-west-1',
      forcePathStyle: true,
      credentials: { accessKeyId: 'AKIA1', secretAccessKey: 'shh' },
    })
    expect(loadConfig({ ...base, BLOB_STORE_URL: 's3://label-photos' }).blobStore).toMatchObject({
      prefix: '',
      endpoint: undefined,
      region: 'us-east-1',
      forcePathStyle: false,
      credentials: undefined,
    })
  })

  it('reports every bad store setting at once, and never the secret key', () => {
    const problems = (env: Record<string, string>) => {
      try {
        loadConfig({ ...base, ...env })
      } catch (e) {
        if (e instanceof ConfigError) return e.problems.join('\n')
      }
      return ''
    }
    expect(problems({ BLOB_STORE: 's3' })).toMatch(/BLOB_STORE_URL: BLOB_STORE=s3 needs/)
    expect(problems({ BLOB_STORE: 'disk' })).toMatch(/BLOB_STORE=.*must be one of auto, local, postgres, s3/)
    expect(problems({ BLOB_STORE: 'postgres', BLOB_STORE_URL: 's3://bucket' })).toMatch(
      /BLOB_STORE_URL: only for BLOB_STORE=s3/,
    )
    const many = problems({
      BLOB_STORE_URL: 's3://user:pw@B_ad?endpoint=ftp://x&colour=red',
      BLOB_STORE_SECRET_ACCESS_KEY: 'very-secret-value',
    })
    for (const m of [
      /credentials go in/,
      /not a bucket name/,
      /unknown option colour/,
      /endpoint=.*must be http/,
      /set both or neither/,
    ])
      expect(many).toMatch(m)
    expect(many).not.toContain('very-secret-value')
    expect(problems({ BLOB_STORE_URL: 'http://bucket' })).toMatch(/BLOB_STORE_URL/)
  })
})

describe('images on the database (BLOB_STORE=postgres)', () => {
  it('by default (auto) keeps the bytes in the database on PostgreSQL, in the data directory on the embedded database', async () => {
    const img = await upload(
      (m, u, p) => t.inject({ method: m, url: u, payload: p as never, headers: me.auth }),
      jpegOf(5000),
    )
    const key = `${me.subId}/${img.imageId}`
    const inDatabase =
      (await t.ctx.db.selectFrom('image_blobs').select('part').where('storage_key', '=', key).execute()).length > 0
    const onDisk = await new LocalDirBlobStore(localImagesDir(t.config.dataDir)).has(key)
    expect({ inDatabase, onDisk }).toEqual(
      t.ctx.database.engine === 'postgres' ? { inDatabase: true, onDisk: false } : { inDatabase: false, onDisk: true },
    )
  })

  it('two processes with their own disks: uploaded through A, attached and served through B', async () => {
    const a = await otherProcess(t, { BLOB_STORE: 'postgres' })
    const b = await otherProcess(t, { BLOB_STORE: 'postgres' })
    try {
      const bytes = jpegOf(700_000)
      const img = await upload((m, u, p) => a.call(me, m, u, p), bytes)
      expect(existsSync(path.join(a.dataDir, 'images'))).toBe(false)
      const pkg = await b.call(me, 'POST', '/api/v1/packages', {
        package: { trackingNumber: `SHARED${Date.now()}` },
        images: [{ imageLevel: 'ASSET', imageType: 'PHOTO', tempURL: img.tempURL }],
      })
      expect(pkg.statusCode, pkg.body).toBe(201)
      const served = await b.call(me, 'GET', `/api/v1/packages/images/${img.imageId}`)
      expect(served.statusCode).toBe(200)
      expect(served.headers['content-length']).toBe(String(bytes.length))
      expect(served.headers['content-type']).toBe('image/jpeg')
      expect(served.headers.etag).toMatch(/^"[0-9a-f]{64}"$/)
      expect(served.rawPayload.equals(bytes)).toBe(true)
      // 700 kB in parts of 256 KiB: three rows, streamed one after the other.
      const parts = await t.ctx.db
        .selectFrom('image_blobs')
        .select('part')
        .where('storage_key', '=', `${me.subId}/${img.imageId}`)
        .orderBy('part')
        .execute()
      expect(parts.map((p) => p.part)).toEqual([0, 1, 2])
      // Another subscription's token does not reach it.
      const stranger = await t.newClient()
      expect((await b.call(stranger, 'GET', `/api/v1/packages/images/${img.imageId}`)).statusCode).toBe(404)
    } finally {
      await a.close()
      await b.close()
    }
  })

  it('local directories are not shared: what A keeps on its disk B cannot serve (the problem this store solves)', async () => {
    const a = await otherProcess(t, { BLOB_STORE: 'local' })
    const b = await otherProcess(t, { BLOB_STORE: 'local' })
    try {
      const img = await upload((m, u, p) => a.call(me, m, u, p), jpegOf(10_000))
      expect((await a.call(me, 'GET', `/${img.tempURL}`)).statusCode).toBe(200)
      expect((await b.call(me, 'GET', `/${img.tempURL}`)).statusCode).toBe(404)
    } finally {
      await a.close()
      await b.close()
    }
  })

  it('purging an expired temporary image removes its parts', async () => {
    const a = await otherProcess(t, { BLOB_STORE: 'postgres' })
    try {
      const img = await upload((m, u, p) => a.call(me, m, u, p), jpegOf(300_000))
      const key = `${me.subId}/${img.imageId}`
      t.clock.advance(24 * 3600 * 1000 + 1)
      try {
        expect(await a.ctx.receiving.images.purgeExpired()).toBeGreaterThanOrEqual(1)
      } finally {
        t.clock.advance(-(24 * 3600 * 1000 + 1))
      }
      expect(await t.ctx.db.selectFrom('image_blobs').select('part').where('storage_key', '=', key).execute()).toEqual(
        [],
      )
    } finally {
      await a.close()
    }
  })

  it('mailroom images migrate: moves local images into the database, resumably, and they are served meanwhile from the old directory', async () => {
    const old = await otherProcess(t, { BLOB_STORE: 'local' })
    const owner = await t.newClient()
    try {
      const images = [jpegOf(1000), jpegOf(300_000), jpegOf(2000), jpegOf(3000)]
      const uploaded = []
      for (const bytes of images) uploaded.push(await upload((m, u, p) => old.call(owner, m, u, p), bytes))
      const local = new LocalDirBlobStore(localImagesDir(old.dataDir))
      const store = new PostgresBlobStore(t.ctx.db)
      const keys = uploaded.map((u) => `${owner.subId}/${u.imageId}`)
      // The upgraded process (same disk, the database store) serves the old images before the move.
      const upgraded = await otherProcess(t, { BLOB_STORE: 'postgres' }, old.dataDir)
      try {
        const before = await upgraded.call(owner, 'GET', `/${uploaded[1]!.tempURL}`)
        expect(before.statusCode).toBe(200)
        expect(before.rawPayload.equals(images[1]!)).toBe(true)
      } finally {
        await upgraded.close()
      }
      // An earlier run was stopped after the first image; the third image's file is lost; the fourth's
      // bytes were altered on disk (they no longer match the digest recorded at upload).
      await store.put(keys[0]!, images[0]!)
      await local.delete(keys[2]!)
      await local.put(keys[3]!, Buffer.from('not the uploaded bytes'))

      const first = await moveImages({ db: t.ctx.db, from: local, to: store })
      expect(first).toMatchObject({ moved: 1, missing: 1, removed: 2, corrupt: 1 })
      // The altered file is neither copied nor deleted: left for an operator to look at.
      expect(await store.has(keys[3]!)).toBe(false)
      expect(await local.has(keys[3]!)).toBe(true)
      expect(first.alreadyThere).toBeGreaterThanOrEqual(1)
      expect(await local.has(keys[0]!)).toBe(false)
      expect(await local.has(keys[1]!)).toBe(false)
      const again = await moveImages({ db: t.ctx.db, from: local, to: store })
      expect(again).toMatchObject({ moved: 0, missing: 1, removed: 0, corrupt: 1 })

      const b = await otherProcess(t, { BLOB_STORE: 'postgres' })
      try {
        for (const [i, u] of uploaded.slice(0, 2).entries()) {
          const res = await b.call(owner, 'GET', `/${u.tempURL}`)
          expect(res.statusCode).toBe(200)
          expect(res.rawPayload.equals(images[i]!)).toBe(true)
        }
      } finally {
        await b.close()
      }
    } finally {
      await old.close()
    }
  })
})
