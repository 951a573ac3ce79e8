import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { loadConfig } from '../../src/app/config.js'
import { LocalDirBlobStore } from '../../src/images/store/blob-store.js'
import { localImagesDir } from '../../src/images/store/blob-stores.js'
import { moveImages } from '../../src/images/store/migrate-blobs.js'
import { S3BlobStore } from '../../src/images/store/s3-blob-store.js'
import { buildTestApp, type TestApp, type TestClient } from '../support/build-test-app.js'
import { api, PNG_1PX } from '../support/factories.js'
import { jpegDataUrl, jpegOf, otherProcess } from './processes.js'
import { startS3Server } from './s3-server.js'

// BLOB_STORE_URL=s3://…: the images of every process in one bucket of an S3-compatible server
// (s3rver, started here), streamed from the bucket to the client.
let s3: Awaited<ReturnType<typeof startS3Server>>
let t: TestApp
let me: TestClient
let a: ReturnType<typeof api>
let store: S3BlobStore
beforeAll(async () => {
  s3 = await startS3Server()
  t = await buildTestApp({ IMAGE_MAX_BYTES: String(2 * 1024 * 1024), ...s3.env() })
  me = await t.newClient()
  a = api(t, me)
  const config = loadConfig({ MAILROOM_SECRET: 'x'.repeat(32), ...s3.env() }).blobStore
  if (config.kind !== 's3') throw new Error('expected the s3 store')
  store = new S3BlobStore(config)
})
afterAll(async () => {
  store?.close()
  await t?.close()
  await s3?.close()
})

describe('images in an S3-compatible store', () => {
  it('uploads into the bucket, attaches, and serves the bytes streamed with their length and ETag', async () => {
    const bytes = jpegOf(1024 * 1024)
    const up = await a.call('POST', '/api/v1/packages/images', { base64: jpegDataUrl(bytes) })
    expect(up.statusCode).toBe(200)
    const img = up.json()
    expect(await store.has(`${me.subId}/${img.imageId}`)).toBe(true)
    const pkg = await a.ok('POST', '/api/v1/packages', {
      package: { trackingNumber: `S3${Date.now()}` },
      images: [{ imageLevel: 'ASSET', imageType: 'PHOTO', tempURL: img.tempURL }],
    })
    const attached = await t.ctx.db
      .selectFrom('images')
      .select('package_id')
      .where('image_id', '=', img.imageId)
      .executeTakeFirstOrThrow()
    expect(attached.package_id).toBe(pkg.packageId ?? pkg.package?.packageId)
    const res = await a.call('GET', `/api/v1/packages/images/${img.imageId}`)
    expect(res.statusCode).toBe(200)
    expect(res.headers['content-length']).toBe(String(bytes.length))
    expect(res.headers['content-type']).toBe('image/jpeg')
    const row = await t.ctx.db
      .selectFrom('images')
      .select('sha256')
      .where('image_id', '=', img.imageId)
      .executeTakeFirstOrThrow()
    expect(res.headers.etag).toBe(`"${row.sha256}"`)
    expect(res.rawPayload.equals(bytes)).toBe(true)
    // Nothing on this process's disk, nothing in the database's blob table.
    expect(await new LocalDirBlobStore(localImagesDir(t.config.dataDir)).isEmpty()).toBe(true)
    expect(await t.ctx.db.selectFrom('image_blobs').select('part').execute()).toEqual([])
  })

  it('another process (its own disk, same bucket) attaches and serves what this one stored', async () => {
    const b = await otherProcess(t, s3.env())
    try {
      const img = (await a.call('POST', '/api/v1/packages/images', { base64: PNG_1PX })).json()
      const pkg = await b.call(me, 'POST', '/api/v1/packages', {
        package: { trackingNumber: `S3B${Date.now()}` },
        images: [{ imageLevel: 'ASSET', imageType: 'PHOTO', tempURL: img.tempURL }],
      })
      expect(pkg.statusCode, pkg.body).toBe(201)
      const res = await b.call(me, 'GET', `/${img.tempURL}`)
      expect(res.statusCode).toBe(200)
      expect(res.rawPayload.equals(Buffer.from(PNG_1PX.split(',')[1]!, 'base64'))).toBe(true)
    } finally {
      await b.close()
    }
  })

  it('answers 404 when the object is gone, and purging an expired image deletes its object', async () => {
    const lost = (await a.call('POST', '/api/v1/packages/images', { base64: PNG_1PX })).json()
    await store.delete(`${me.subId}/${lost.imageId}`)
    expect((await a.call('GET', `/${lost.tempURL}`)).statusCode).toBe(404)
    const temp = (await a.call('POST', '/api/v1/packages/images', { base64: PNG_1PX })).json()
    t.clock.advance(24 * 3600 * 1000 + 1)
    try {
      expect(await t.ctx.receiving.images.purgeExpired()).toBeGreaterThanOrEqual(1)
    } finally {
      t.clock.advance(-(24 * 3600 * 1000 + 1))
    }
    expect(await store.has(`${me.subId}/${temp.imageId}`)).toBe(false)
  })

  it('mailroom images migrate moves local images into the bucket', async () => {
    const old = await otherProcess(t, { BLOB_STORE: 'local' })
    try {
      const bytes = jpegOf(50_000)
      const img = (await old.call(me, 'POST', '/api/v1/packages/images', { base64: jpegDataUrl(bytes) })).json()
      const local = new LocalDirBlobStore(localImagesDir(old.dataDir))
      const counts = await moveImages({ db: t.ctx.db, from: local, to: store })
      expect(counts.moved).toBe(1)
      expect(await local.isEmpty()).toBe(false) // the subscription's (now empty) folder stays
      expect(await local.has(`${me.subId}/${img.imageId}`)).toBe(false)
      const res = await a.call('GET', `/${img.tempURL}`)
      expect(res.statusCode).toBe(200)
      expect(res.rawPayload.equals(bytes)).toBe(true)
    } finally {
      await old.close()
    }
  })
})
