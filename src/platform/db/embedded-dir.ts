import type { PGlite } from '@electric-sql/pglite'
import { readdirSync, renameSync, rmSync } from 'node:fs'
import path from 'node:path'

/** A restore's target already holds a database. */
export class DataDirExistsError extends Error {}

/** The embedded database's directory exists but does not open: the message says what to do. */
export class DataDirDamagedError extends Error {}

/**
 * Opens the embedded database in `dir`, creating it first if there is none (createEmbeddedDir). The
 * caller holds the data directory's lock.
 */
export async function openEmbeddedDir(
  dir: string,
  open: (dataDir: string, from?: Blob) => Promise<PGlite>,
): Promise<PGlite> {
  await createEmbeddedDir(dir, open)
  try {
    return await open(dir)
  } catch (e) {
    throw new DataDirDamagedError(
      `the embedded database in ${dir} cannot be opened (${e instanceof Error ? e.message : String(e)}). ` +
        'It is incomplete or damaged, typically because an older mailroom was stopped during its very first start, or because files in it were changed or removed. ' +
        `If it holds nothing you need, delete it (rm -r '${dir}') and start again: a new one is created. ` +
        `If it holds data, keep it as it is, restore it from a backup, or point MAILROOM_DATA_DIR at a copy; the master secret beside it (${path.join(path.dirname(dir), 'master.secret')}) belongs with it.`,
      { cause: e },
    )
  }
}

/**
 * Makes the embedded database in `dir` if there is none: a new one, or (`from`) one loaded from a
 * dump of another's data directory (a restore), which `dir` must not hold yet. Creating one (initdb)
 * takes seconds and writes hundreds of files: a process stopped half-way used to leave a directory
 * that never opened again. So it is made in a sibling directory, `prepare`d there (a restore is
 * migrated and marked before anyone can start on it), closed, and renamed into place only then:
 * `dir` either does not exist or holds a whole database. Leftovers of an interrupted creation are
 * removed. The caller holds the data directory's lock.
 */
export async function createEmbeddedDir(
  dir: string,
  open: (dataDir: string, from?: Blob) => Promise<PGlite>,
  opts: { from?: Blob; prepare?: (fresh: PGlite) => Promise<void> } = {},
): Promise<void> {
  const parent = path.dirname(dir)
  const name = path.basename(dir)
  for (const entry of readdirSync(parent)) {
    if (entry.startsWith(`${name}.init-`)) rmSync(path.join(parent, entry), { recursive: true, force: true })
  }
  if (!isMissingOrEmpty(dir)) {
    if (opts.from)
      throw new DataDirExistsError(
        `${dir} already holds a database: restore into a data directory without one (MAILROOM_DATA_DIR), or move it away first`,
      )
    return
  }
  // Empty: made by an older version that was stopped before initdb wrote anything.
  rmSync(dir, { recursive: true, force: true })
  const staging = path.join(parent, `${name}.init-${process.pid}`)
  const fresh = await open(staging, opts.from)
  try {
    await opts.prepare?.(fresh)
  } finally {
    await fresh.close()
  }
  renameSync(staging, dir)
}

function isMissingOrEmpty(dir: string): boolean {
  try {
    return readdirSync(dir).length === 0
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return true
    throw e
  }
}
