import { createHash } from 'node:crypto'
import type { Db } from '../../platform/db/database.js'
import { readWhole, type BlobStore } from './blob-store.js'
import { listStoredImages } from './images.js'

export interface MoveCounts {
  /** Copied to the target in this run. */
  moved: number
  /** Already in the target (an earlier, interrupted run moved them). */
  alreadyThere: number
  /** In neither store: a row whose bytes were lost, reported, left as it is. */
  missing: number
  /** Copies removed from the source once the target holds them. */
  removed: number
  /**
   * Bytes that do not match the digest recorded at upload: not copied, and the source's copy kept,
   * for an operator to look at (the image is served as before from wherever it is).
   */
  corrupt: number
}

const digestOf = (bytes: Buffer) => createHash('sha256').update(bytes).digest('hex')

/** The store's bytes for a key when they match the recorded digest; `missing` or `corrupt` otherwise. */
async function verified(store: BlobStore, key: string, sha256: string): Promise<Buffer | 'missing' | 'corrupt'> {
  const blob = await store.open(key)
  if (!blob) return 'missing'
  const bytes = await readWhole(blob)
  return digestOf(bytes) === sha256 ? bytes : 'corrupt'
}

/**
 * Moves the bytes of every image row from one store to another (`mailroom images migrate`).
 * Idempotent and resumable: a key the target already holds is not copied again, and the source's
 * copy is removed (unless `keepSource`) only after the target's copy was read back and matched the
 * SHA-256 recorded at upload, so an interrupted run loses nothing and the next run takes up where it
 * stopped. Bytes that do not match their digest are never copied over good ones nor deleted.
 */
export async function moveImages(deps: {
  db: Db
  from: BlobStore
  to: BlobStore
  keepSource?: boolean
  batch?: number
  onBatch?: (counts: MoveCounts) => void
}): Promise<MoveCounts> {
  const { db, from, to } = deps
  const counts: MoveCounts = { moved: 0, alreadyThere: 0, missing: 0, removed: 0, corrupt: 0 }
  let after = ''
  for (;;) {
    const rows = await listStoredImages(db, after, deps.batch ?? 100)
    if (rows.length === 0) return counts
    for (const { storage_key: key, sha256 } of rows) {
      const there = (await to.has(key)) ? await verified(to, key, sha256) : 'missing'
      if (Buffer.isBuffer(there)) {
        counts.alreadyThere++
      } else {
        // Not in the target, or a bad copy there (a store written outside mailroom): copy the source's good bytes.
        const source = await verified(from, key, sha256)
        if (!Buffer.isBuffer(source)) {
          counts[source === 'missing' && there === 'missing' ? 'missing' : 'corrupt']++
          continue
        }
        await to.put(key, source)
        if (!Buffer.isBuffer(await verified(to, key, sha256))) {
          counts.corrupt++
          continue
        }
        counts.moved++
      }
      if (!deps.keepSource && (await from.has(key))) {
        await from.delete(key)
        counts.removed++
      }
    }
    after = rows[rows.length - 1]!.storage_key
    deps.onBatch?.({ ...counts })
  }
}
