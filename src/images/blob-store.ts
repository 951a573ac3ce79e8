import { mkdir, readFile, rename, rm, writeFile } from 'node:fs/promises'
import path from 'node:path'
import { randomBytes } from 'node:crypto'

/** Where image bytes live. Local directory by default; an S3-compatible store fits the same seam. */
export interface BlobStore {
  put(key: string, bytes: Uint8Array): Promise<void>
  get(key: string): Promise<Buffer | undefined>
  delete(key: string): Promise<void>
}

const SAFE_KEY = /^[a-z0-9_]+(\/[a-z0-9_]+)*$/

export class LocalDirBlobStore implements BlobStore {
  constructor(private readonly root: string) {}

  #path(key: string): string {
    // Keys are ours (subscription/image ids), but a path must never leave the root whatever happens.
    if (!SAFE_KEY.test(key)) throw new Error(`unsafe blob key ${key}`)
    return path.join(this.root, ...key.split('/'))
  }

  async put(key: string, bytes: Uint8Array): Promise<void> {
    const file = this.#path(key)
    await mkdir(path.dirname(file), { recursive: true })
    // Write then rename: a reader never sees half a file, a crash leaves only a temp file behind.
    const tmp = `${file}.${randomBytes(4).toString('hex')}.tmp`
    await writeFile(tmp, bytes)
    await rename(tmp, file)
  }

  async get(key: string): Promise<Buffer | undefined> {
    try {
      return await readFile(this.#path(key))
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === 'ENOENT') return undefined
      throw e
    }
  }

  async delete(key: string): Promise<void> {
    await rm(this.#path(key), { force: true })
  }
}
