import { mkdir, open, readdir, rename, rm, writeFile } from 'node:fs/promises'
import path from 'node:path'
import { randomBytes } from 'node:crypto'
import type { Readable } from 'node:stream'

/** A stored image's bytes, opened for reading: read as a stream, never held whole. */
export interface OpenedBlob {
  size: number
  stream: Readable
}

/**
 * Where image bytes live (BLOB_STORE): a local directory (one process), the database or an
 * S3-compatible object store (every process of a deployment). `put` is all or nothing: a reader
 * never sees half an image.
 */
export interface BlobStore {
  readonly kind: 'local' | 'postgres' | 's3'
  put(key: string, bytes: Uint8Array): Promise<void>
  /** The bytes as a stream, or undefined when the key holds none. */
  open(key: string): Promise<OpenedBlob | undefined>
  has(key: string): Promise<boolean>
  delete(key: string): Promise<void>
  /** Lets go of connections (the S3 client's sockets); the database store has none of its own. */
  close?(): void
}

const SAFE_KEY = /^[a-z0-9_]+(\/[a-z0-9_]+)*$/

/** Keys are ours (subscription/image ids); a key that is not one is refused before it reaches a path or a bucket. */
export function checkKey(key: string): string {
  if (!SAFE_KEY.test(key)) throw new Error(`unsafe blob key ${key}`)
  return key
}

export async function readWhole(blob: OpenedBlob): Promise<Buffer> {
  const parts: Buffer[] = []
  for await (const chunk of blob.stream) parts.push(chunk as Buffer)
  return Buffer.concat(parts)
}

export class LocalDirBlobStore implements BlobStore {
  readonly kind = 'local'
  constructor(private readonly root: string) {}

  #path(key: string): string {
    // A path must never leave the root whatever happens.
    return path.join(this.root, ...checkKey(key).split('/'))
  }

  async put(key: string, bytes: Uint8Array): Promise<void> {
    const file = this.#path(key)
    await mkdir(path.dirname(file), { recursive: true })
    // Write then rename: a reader never sees half a file, a crash leaves only a temp file behind.
    const tmp = `${file}.${randomBytes(4).toString('hex')}.tmp`
    await writeFile(tmp, bytes)
    await rename(tmp, file)
  }

  async open(key: string): Promise<OpenedBlob | undefined> {
    try {
      // The size and the stream of one open file: a rename between the two cannot mix two images.
      const handle = await open(this.#path(key), 'r')
      const { size } = await handle.stat()
      return { size, stream: handle.createReadStream() }
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === 'ENOENT') return undefined
      throw e
    }
  }

  async has(key: string): Promise<boolean> {
    const blob = await this.open(key)
    blob?.stream.destroy()
    return blob !== undefined
  }

  async delete(key: string): Promise<void> {
    await rm(this.#path(key), { force: true })
  }

  /** Whether the directory holds any image (`mailroom images migrate` and the fallback reader look). */
  async isEmpty(): Promise<boolean> {
    try {
      return (await readdir(this.root)).length === 0
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === 'ENOENT') return true
      throw e
    }
  }
}
