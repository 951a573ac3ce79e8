import { closeSync, openSync, readFileSync, unlinkSync, writeSync } from 'node:fs'
import path from 'node:path'

export class DataDirInUseError extends Error {}

/**
 * PGlite is PostgreSQL inside this process: a second process opening the same directory does not
 * wait or fail, it silently writes over the first one's pages (seen: a client created from the CLI
 * while `serve` ran was lost, and the directory no longer opened). The lock file turns that into a
 * clear refusal. A lock left by a process that died is taken over.
 */
export function lockDataDir(dir: string, pid = process.pid): () => void {
  // Beside the directory, not in it: a fresh database directory must stay empty for initdb.
  const file = `${path.resolve(dir)}.lock`
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      const fd = openSync(file, 'wx', 0o600)
      writeSync(fd, `${pid}\n`)
      closeSync(fd)
      return () => {
        try {
          if (readOwner(file) === pid) unlinkSync(file)
        } catch {
          // already gone
        }
      }
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e
      const owner = readOwner(file)
      if (owner !== undefined && owner !== pid && isAlive(owner)) {
        throw new DataDirInUseError(
          `the embedded database in ${dir} is in use by process ${owner} (a running \`mailroom serve\` or another command). ` +
            'Stop that process first, or run every process against PostgreSQL (DATABASE_URL).',
        )
      }
      try {
        unlinkSync(file)
      } catch {
        // another process took it over first; the next attempt decides
      }
    }
  }
  throw new DataDirInUseError(`could not lock the embedded database in ${dir}`)
}

function readOwner(file: string): number | undefined {
  try {
    const pid = Number.parseInt(readFileSync(file, 'utf8'), 10)
    return Number.isSafeInteger(pid) && pid > 0 ? pid : undefined
  } catch {
    return undefined
  }
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0)
    return true
  } catch (e) {
    // EPERM: it exists but belongs to someone else.
    return (e as NodeJS.ErrnoException).code === 'EPERM'
  }
}
