import path from 'node:path'
import type { Db, DbEngine } from '../../platform/db/database.js'
import { LocalDirBlobStore, type BlobStore, type OpenedBlob } from './blob-store.js'
import { PostgresBlobStore } from './postgres-blob-store.js'
import { S3BlobStore } from './s3-blob-store.js'

/**
 * The store BLOB_STORE names. `auto`: the database on PostgreSQL, where several processes may
 * serve one deployment; the data directory on the embedded database, which one process owns.
 */
export function resolveBlobStoreKind(config: BlobStoreConfig, engine: DbEngine): BlobStore['kind'] {
  return config.kind === 'auto' ? (engine === 'postgres' ? 'postgres' : 'local') : config.kind
}

export function localImagesDir(dataDir: string): string {
  return path.join(dataDir, 'images')
}

/**
 * Builds the configured store. A shared store also reads, as a fallback, the images an earlier
 * version kept in the data directory, so an upgrade serves them before `mailroom images migrate`
 * has moved them (nothing is written there any more).
 */
export function createBlobStore(deps: {
  config: { blobStore: BlobStoreConfig; dataDir: string }
  db: Db
  engine: DbEngine
}): BlobStore {
  const local = new LocalDirBlobStore(localImagesDir(deps.config.dataDir))
  const store = storeOfKind(
    deps.config.blobStore,
    resolveBlobStoreKind(deps.config.blobStore, deps.engine),
    deps.db,
    local,
  )
  return store === local ? local : new WithLocalFallback(store, local)
}

export function storeOfKind(
  config: BlobStoreConfig,
  kind: BlobStore['kind'],
  db: Db,
  local: LocalDirBlobStore,
): BlobStore {
  switch (kind) {
    case 'local':
      return local
    case 'postgres':
      return new PostgresBlobStore(db)
    case 's3':
      if (config.kind !== 's3') throw new Error('BLOB_STORE=s3 needs BLOB_STORE_URL')
      return new S3BlobStore(config)
    default: {
      const never: never = kind
      throw new Error(`unknown blob store ${String(never)}`)
    }
  }
}

class WithLocalFallback implements BlobStore {
  constructor(
    private readonly store: BlobStore,
    private readonly legacy: LocalDirBlobStore,
  ) {}

  get kind() {
    return this.store.kind
  }

  put(key: string, bytes: Uint8Array): Promise<void> {
    return this.store.put(key, bytes)
  }

  async open(key: string): Promise<OpenedBlob | undefined> {
    return (await this.store.open(key)) ?? this.legacy.open(key)
  }

  async has(key: string): Promise<boolean> {
    return (await this.store.has(key)) || this.legacy.has(key)
  }

  async delete(key: string): Promise<void> {
    await Promise.all([this.store.delete(key), this.legacy.delete(key)])
  }
}

export type BlobStoreConfig =
  | { kind: 'auto' | 'local' | 'postgres' }
  | {
      kind: 's3'
      bucket: string
      /** Prepended to every key ('' or ending in '/'). */
      prefix: string
      /** An S3-compatible server; absent: AWS S3 in `region`. */
      endpoint: string | undefined
      region: string
      forcePathStyle: boolean
      /** Absent: the AWS SDK's own chain (instance role, web identity, shared files). */
      credentials: { accessKeyId: string; secretAccessKey: string } | undefined
    }
