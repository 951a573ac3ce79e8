import type { Db } from '../db/database.js'
import { readWhole, type BlobStore } from './blob-store.js'
import { listStorageKeys } from './images.repo.js'

export interface MoveCounts {
  /** Copied to the target in this run. */
  moved: number
  /** Already in the target (an earlier, interrupted run moved them). */
  alreadyThere: number
  /** In neither store: a row whose bytes were lost, reported, left as it is. */
  missing: number
  /** Copies removed from the source once the target holds them. */
  removed: number
}

/**
 * Moves the bytes of every image row from one store to another (`mailroom images migrate`).
 * Idempotent and resumable: a key the target already holds is not copied again, and the source's
 * copy is removed (unless `keepSource`) only after the target holds the bytes, so an interrupted
 * run loses nothing and the next run takes up where it stopped.
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
  const counts: MoveCounts = { moved: 0, alreadyThere: 0, missing: 0, removed: 0 }
  let after = ''
  for (;;) {
    const keys = await listStorageKeys(db, after, deps.batch ?? 100)
    if (keys.length === 0) return counts
    for (const key of keys) {
      if (await to.has(key)) {
        counts.alreadyThere++
      } else {
        const blob = await from.open(key)
        if (!blob) {
          counts.missing++
          continue
        }
        await to.put(key, await readWhole(blob))
        counts.moved++
      }
      if (!deps.keepSource && (await from.has(key))) {
        await from.delete(key)
        counts.removed++
      }
    }
    after = keys[keys.length - 1]!
    deps.onBatch?.({ ...counts })
  }
}
