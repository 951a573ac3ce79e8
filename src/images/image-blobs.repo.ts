import type { Executor } from '../db/transaction.js'

// image_blobs holds bytes under keys that already carry the subscription (`<subId>/<imageId>`,
// images.storage_key); the images table, read first with its sub_id, decides who may read them.

export async function replaceBlobParts(trx: Executor, key: string, parts: Buffer[]): Promise<void> {
  await trx.deleteFrom('image_blobs').where('storage_key', '=', key).execute()
  if (parts.length > 0) await trx.insertInto('image_blobs').values(parts.map((bytes, part) => ({ storage_key: key, part, bytes }))).execute()
}

export async function findBlobPart(db: Executor, key: string, part: number): Promise<Buffer | undefined> {
  const row = await db.selectFrom('image_blobs').select('bytes').where('storage_key', '=', key).where('part', '=', part).executeTakeFirst()
  return row?.bytes
}

/** Size of the stored bytes and the number of parts; undefined when the key holds none. */
export async function measureBlob(db: Executor, key: string): Promise<{ size: number; parts: number } | undefined> {
  const row = await db.selectFrom('image_blobs')
    .select((eb) => [eb.fn.countAll<number>().as('parts'), eb.fn.sum<number>(eb.fn('octet_length', ['bytes'])).as('size')])
    .where('storage_key', '=', key).executeTakeFirstOrThrow()
  return Number(row.parts) > 0 ? { size: Number(row.size), parts: Number(row.parts) } : undefined
}

export async function deleteBlob(db: Executor, key: string): Promise<void> {
  await db.deleteFrom('image_blobs').where('storage_key', '=', key).execute()
}
