import S3rver from 's3rver'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'

/** An S3-compatible server on a free local port, its bucket `images`, gone with close(). */
export async function startS3Server() {
  const directory = mkdtempSync(path.join(tmpdir(), 'mailroom-s3-'))
  const server = new S3rver({
    port: 0,
    address: '127.0.0.1',
    silent: true,
    directory,
    configureBuckets: [{ name: 'images' }],
  })
  const { port } = await server.run()
  return {
    /** The environment of a mailroom process storing its images there, under `prefix`. */
    env: (prefix = 'mailroom') => ({
      BLOB_STORE_URL: `s3://images/${prefix}?endpoint=http://127.0.0.1:${port}`,
      BLOB_STORE_ACCESS_KEY_ID: 'S3RVER',
      BLOB_STORE_SECRET_ACCESS_KEY: 'S3RVER',
    }),
    async close() {
      await server.close()
      rmSync(directory, { recursive: true, force: true })
    },
  }
}
