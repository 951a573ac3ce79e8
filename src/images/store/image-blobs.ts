import type { Executor } from '../../platform/db/transaction.js'
import { inStatementChunks } from '../../platform/db/statement-limits.js'

// image_blobs holds bytes under keys that already carry the subscription (`<subId>/<imageId>`,
// images.storage_key); the images table, read first with its sub_id, decides who may read them.

export async function replaceBlobParts(trx: Executor, key: string, parts: Buffer[]): Promise<void> {
  await trx.deleteFrom('image_blobs').where('storage_key', '=', key).execute()
  await inStatementChunks(
    parts.map((bytes, part) => ({ storage_key: key, part, bytes })),
    (chunk) => trx.insertInto('image_blobs').values(chunk).execute(),
  )
}

export async function findBlobPart(db: Executor, key: string, part: number): Promise<Buffer | undefined> {
  const row = await db
    .selectFrom('image_blobs')
    .select('bytes')
    .where('storage_key', '=', key)
    .where('part', '=', part)
    .executeTakeFirst()
  return row?.bytes
}

/** The first part, with the number of parts and their total size (one round trip); undefined when the key holds none. */
export async function findFirstPart(
  db: Executor,
  key: string,
): Promise<{ bytes: Buffer; parts: number; size: number } | undefined> {
  const row = await db
    .selectFrom('image_blobs as first')
    .select((eb) => [
      'first.bytes',
      eb
        .selectFrom('image_blobs')
        .select((c) => c.fn.countAll<number>().as('n'))
        .where('storage_key', '=', key)
        .as('parts'),
      eb
        .selectFrom('image_blobs')
        .select((c) => c.fn.sum<number>(c.fn('octet_length', ['bytes'])).as('s'))
        .where('storage_key', '=', key)
        .as('size'),
    ])
    .where('first.storage_key', '=', key)
    .where('first.part', '=', 0)
    .executeTakeFirst()
  return row ? { bytes: row.bytes, parts: Number(row.parts), size: Number(row.size) } : undefined
}

export async function deleteBlob(db: Executor, key: string): Promise<void> {
  await db.deleteFrom('image_blobs').where('storage_key', '=', key).execute()
}
