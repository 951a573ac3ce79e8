import type { Selectable } from 'kysely'
import type { ImageTable } from '../../platform/db/tables.js'
import type { Executor } from '../../platform/db/transaction.js'

export type ImageRow = Pick<Selectable<ImageTable>, (typeof COLUMNS)[number]>
const COLUMNS = [
  'image_id',
  'content_type',
  'byte_size',
  'sha256',
  'storage_key',
  'package_id',
  'activity_id',
  'image_level',
  'image_type',
  'created_at',
  'expires_at',
] as const

export async function insertImage(
  db: Executor,
  row: Omit<ImageRow, 'package_id' | 'activity_id' | 'image_level' | 'image_type'> & { sub_id: string },
): Promise<void> {
  await db.insertInto('images').values(row).execute()
}

export async function findImage(db: Executor, subId: string, imageId: string): Promise<ImageRow | undefined> {
  return db
    .selectFrom('images')
    .select(COLUMNS)
    .where('sub_id', '=', subId)
    .where('image_id', '=', imageId)
    .executeTakeFirst()
}

/** Takes a temporary image for a package, atomically: of two concurrent claims only one succeeds. */
export async function claimTempImage(
  db: Executor,
  subId: string,
  imageId: string,
  now: Date,
  set: { package_id: string; activity_id: string | null; image_level: 'ASSET' | 'ACTIVITY'; image_type: string },
): Promise<ImageRow | undefined> {
  return db
    .updateTable('images')
    .set({ ...set, expires_at: null })
    .where('sub_id', '=', subId)
    .where('image_id', '=', imageId)
    .where('package_id', 'is', null)
    .where('expires_at', '>', now)
    .returning(COLUMNS)
    .executeTakeFirst()
}

/** Uploaded images of the subscription that no package has taken and that have not expired. */
export async function countHeldTemp(db: Executor, subId: string, now: Date): Promise<number> {
  const row = await db
    .selectFrom('images')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('sub_id', '=', subId)
    .where('package_id', 'is', null)
    .where('expires_at', '>', now)
    .executeTakeFirstOrThrow()
  return Number(row.n)
}

export async function listPackageImages(db: Executor, subId: string, packageId: string): Promise<ImageRow[]> {
  return db
    .selectFrom('images')
    .select(COLUMNS)
    .where('sub_id', '=', subId)
    .where('package_id', '=', packageId)
    .orderBy('created_at')
    .orderBy('image_id')
    .execute()
}

export async function takeExpired(
  db: Executor,
  now: Date,
  limit: number,
): Promise<Array<{ image_id: string; storage_key: string }>> {
  return db
    .deleteFrom('images')
    .where('image_id', 'in', (eb) =>
      eb
        .selectFrom('images')
        .select('image_id')
        .where('expires_at', '<=', now)
        .where('package_id', 'is', null)
        .limit(limit),
    )
    .returning(['image_id', 'storage_key'])
    .execute()
}

/** Storage keys of every subscription's images after `after`, in key order (`mailroom images migrate` pages through them). */
/** The stored images after `after` in key order, with the digest their bytes must have. */
export async function listStoredImages(
  db: Executor,
  after: string,
  limit: number,
): Promise<Array<{ storage_key: string; sha256: string }>> {
  return db
    .selectFrom('images')
    .select(['storage_key', 'sha256'])
    .where('storage_key', '>', after)
    .orderBy('storage_key')
    .limit(limit)
    .execute()
}
