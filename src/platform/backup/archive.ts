import { chmodSync, existsSync, mkdirSync, readFileSync, renameSync, rmSync, symlinkSync, writeFileSync } from 'node:fs'
import path from 'node:path'
import { create, extract } from 'tar'

// A backup file of the embedded database: a gzipped tar holding
//   manifest.json    what it holds (BackupManifest)
//   pglite.tar.gz    the database's data directory, as PGlite's dumpDataDir wrote it
//   images/          the local image store (BLOB_STORE=local), when there is one
//   secret.json      the master secret sealed with a passphrase, when the operator chose that
// Written under a temporary name and renamed into place: a backup file is whole or absent.

export const BACKUP_FORMAT = 1

export interface BackupManifest {
  format: typeof BACKUP_FORMAT
  /** When the snapshot was asked for: it was taken between this and the file being written. */
  takenAt: string
  engine: 'pglite'
  images: boolean
  /** Where the master secret went: FILE.secret beside the backup, sealed in it, or nowhere (--no-secret). */
  secret: 'beside' | 'sealed' | 'none'
}

const DATABASE = 'pglite.tar.gz'
const SEALED_SECRET = 'secret.json'

/** A backup file that cannot be read as one: the message says why. */
export class BackupFileError extends Error {}

export async function writeBackup(
  file: string,
  parts: { manifest: BackupManifest; database: Buffer; imagesDir?: string; sealedSecret?: string },
): Promise<void> {
  const staging = `${file}.parts-${process.pid}`
  const tmp = `${file}.${process.pid}.tmp`
  rmSync(staging, { recursive: true, force: true })
  mkdirSync(staging, { recursive: true })
  try {
    const entries = ['manifest.json', DATABASE]
    writeFileSync(path.join(staging, 'manifest.json'), `${JSON.stringify(parts.manifest, null, 2)}\n`)
    writeFileSync(path.join(staging, DATABASE), parts.database)
    if (parts.sealedSecret !== undefined) {
      writeFileSync(path.join(staging, SEALED_SECRET), parts.sealedSecret, { mode: 0o600 })
      entries.push(SEALED_SECRET)
    }
    if (parts.imagesDir && existsSync(parts.imagesDir)) {
      // A link, packed as what it points to (follow): the images are read once, straight into the file.
      symlinkSync(path.resolve(parts.imagesDir), path.join(staging, 'images'))
      entries.push('images')
    }
    await create(
      {
        gzip: true,
        file: tmp,
        cwd: staging,
        follow: true,
        portable: true,
        // An image being written is a temp file until renamed: never packed half-written.
        filter: (p) => !p.endsWith('.tmp'),
      },
      entries,
    )
    // The whole database: readable by its owner only, as the data directory is.
    chmodSync(tmp, 0o600)
    renameSync(tmp, file)
  } finally {
    rmSync(tmp, { force: true })
    rmSync(staging, { recursive: true, force: true })
  }
}

export interface OpenedBackup {
  manifest: BackupManifest
  database: Blob
  /** The extracted images, if the backup holds any: move them into place. */
  imagesDir: string | undefined
  sealedSecret: string | undefined
  /** Removes what was extracted. */
  dispose(): void
}

/** Unpacks `file` into `workDir` (made, and removed by dispose) and reads its parts. */
export async function openBackup(file: string, workDir: string): Promise<OpenedBackup> {
  if (!existsSync(file)) throw new BackupFileError(`${file}: no such file`)
  rmSync(workDir, { recursive: true, force: true })
  mkdirSync(workDir, { recursive: true })
  const dispose = () => rmSync(workDir, { recursive: true, force: true })
  try {
    // Paths are kept under workDir (tar refuses absolute and `..` entries).
    await extract({ file, cwd: workDir, strict: true })
    let manifest: BackupManifest
    try {
      manifest = JSON.parse(readFileSync(path.join(workDir, 'manifest.json'), 'utf8')) as BackupManifest
    } catch {
      throw new BackupFileError(`${file} is not a mailroom backup (no manifest.json in it)`)
    }
    if (manifest.format !== BACKUP_FORMAT || manifest.engine !== 'pglite')
      throw new BackupFileError(
        `${file}: a backup of format ${String(manifest.format)}, which this mailroom cannot read`,
      )
    const images = path.join(workDir, 'images')
    const sealed = path.join(workDir, SEALED_SECRET)
    return {
      manifest,
      database: new Blob([readFileSync(path.join(workDir, DATABASE))], { type: 'application/gzip' }),
      imagesDir: manifest.images && existsSync(images) ? images : undefined,
      sealedSecret: existsSync(sealed) ? readFileSync(sealed, 'utf8') : undefined,
      dispose,
    }
  } catch (e) {
    dispose()
    if (e instanceof BackupFileError) throw e
    throw new BackupFileError(
      `${file} cannot be read as a mailroom backup (${e instanceof Error ? e.message : String(e)})`,
    )
  }
}
