import type { Config } from '../config.js'
import { openDatabase } from '../../platform/db/database.js'
import { migrateToLatest } from '../../platform/db/migrate.js'
import { LocalDirBlobStore, type BlobStore } from '../../images/index.js'
import { localImagesDir, resolveBlobStoreKind, storeOfKind } from '../../images/index.js'
import { moveImages } from '../../images/index.js'
import { parse, UsageError } from './args.js'

const KINDS = ['local', 'postgres', 's3'] as const

/**
 * `mailroom images migrate [--from local] [--to postgres|s3] [--keep]`: moves the bytes of existing
 * images into the configured store (issue 16.1). Safe to run while the service serves: it reads
 * the old store as a fallback until the bytes are moved.
 */
export async function imagesCommand(config: Readonly<Config>, args: string[]): Promise<void> {
  const [sub, ...rest] = args
  if (sub !== 'migrate') throw new UsageError(`unknown images command ${sub ?? '(none)'}`)
  const { values } = parse(rest, {
    from: { type: 'string', default: 'local' },
    to: { type: 'string' },
    keep: { type: 'boolean', default: false },
  })
  const kindOf = (v: string, flag: string) => {
    if (!(KINDS as readonly string[]).includes(v)) throw new UsageError(`${flag} must be one of ${KINDS.join(', ')}`)
    return v as BlobStore['kind']
  }
  const from = kindOf(values.from, '--from')
  const to = values.to ? kindOf(values.to, '--to') : resolveBlobStoreKind(config.blobStore, config.database.kind)
  if (from === to)
    throw new UsageError(`the images are already in the ${to} store; set BLOB_STORE (postgres or s3) or pass --to`)
  if ((from === 's3' || to === 's3') && config.blobStore.kind !== 's3')
    throw new UsageError('moving to or from s3 needs BLOB_STORE_URL')
  const database = await openDatabase(config.database)
  try {
    await migrateToLatest(database.db)
    const local = new LocalDirBlobStore(localImagesDir(config.dataDir))
    const source = storeOfKind(config.blobStore, from, database.db, local)
    const target = storeOfKind(config.blobStore, to, database.db, local)
    const counts = await moveImages({
      db: database.db,
      from: source,
      to: target,
      keepSource: values.keep,
      onBatch: (c) =>
        process.stderr.write(
          `  moved ${c.moved}, already there ${c.alreadyThere}, missing ${c.missing}, corrupt ${c.corrupt}\n`,
        ),
    }).finally(() => {
      source.close?.()
      target.close?.()
    })
    process.stdout.write(
      `images ${from} → ${to}: moved ${counts.moved}, already there ${counts.alreadyThere}, missing ${counts.missing}, corrupt (kept in ${from}) ${counts.corrupt}, removed from ${from} ${counts.removed}\n`,
    )
  } finally {
    await database.close()
  }
}
