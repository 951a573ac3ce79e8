import { Readable } from 'node:stream'
import type { Db } from '../../platform/db/database.js'
import { inTransaction } from '../../platform/db/transaction.js'
import { checkKey, type BlobStore, type OpenedBlob } from './blob-store.js'
import * as repo from './image-blobs.js'

/**
 * Image bytes in the database (table image_blobs, migration 0014), in parts of PART_BYTES: every
 * process of a deployment on one PostgreSQL reads what another stored, and a download holds one
 * part at a time, read when the socket wants more.
 */
export class PostgresBlobStore implements BlobStore {
  readonly kind = 'postgres'
  static readonly PART_BYTES = 256 * 1024

  constructor(private readonly db: Db) {}

  async put(key: string, bytes: Uint8Array): Promise<void> {
    checkKey(key)
    const whole = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength)
    const parts: Buffer[] = []
    for (let at = 0; at < whole.length; at += PostgresBlobStore.PART_BYTES)
      parts.push(whole.subarray(at, at + PostgresBlobStore.PART_BYTES))
    // One transaction: a reader sees all the parts or none.
    await inTransaction(this.db, (trx) => repo.replaceBlobParts(trx, key, parts))
  }

  async open(key: string): Promise<OpenedBlob | undefined> {
    const first = await repo.findFirstPart(this.db, checkKey(key))
    if (!first) return undefined
    const db = this.db
    async function* parts() {
      yield first!.bytes
      for (let part = 1; part < first!.parts; part++) {
        const bytes = await repo.findBlobPart(db, key, part)
        // Deleted (purged) while being read: end the response short rather than send other bytes.
        if (!bytes) throw new Error(`image blob ${key} changed while being read`)
        yield bytes
      }
    }
    return { size: first.size, stream: Readable.from(parts(), { objectMode: false }) }
  }

  async has(key: string): Promise<boolean> {
    return (await repo.findBlobPart(this.db, checkKey(key), 0)) !== undefined
  }

  async delete(key: string): Promise<void> {
    await repo.deleteBlob(this.db, checkKey(key))
  }
}
