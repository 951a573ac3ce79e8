import { closeSync, openSync, readFileSync, realpathSync, unlinkSync, writeSync } from 'node:fs'
import { hostname } from 'node:os'
import path from 'node:path'

export class DataDirInUseError extends Error {}

/** Who holds a data directory: written into its lock file as one line of JSON. */
interface LockOwner {
  pid: number
  host: string
  /** The directory locked, canonical (see canonicalDir): a copy of the lock inside a copied data directory names the original. */
  dir: string
  /** The process's start time (Linux: /proc/<pid>/stat, in clock ticks since boot); absent elsewhere. */
  started?: string
}

/**
 * PGlite is PostgreSQL inside this process: a second process opening the same directory does not
 * wait or fail, it silently writes over the first one's pages (seen: a client created from the CLI
 * while `serve` ran was lost, and the directory no longer opened). The lock file turns that into a
 * clear refusal. Only a live owner of this very directory on this host refuses; a lock left by a
 * process that died, by a process id now reused by another program, or copied along with the data
 * directory (`cp -a` of a running service: the lock names the original's directory or host) is
 * stale and taken over.
 */
export function lockDataDir(dir: string, pid = process.pid): () => void {
  const resolved = canonicalDir(dir)
  // Beside the directory, not in it: a fresh database directory must stay empty for initdb. Named
  // from the canonical path, so that every alias of the directory finds the same lock file.
  const file = `${resolved}.lock`
  const me: LockOwner = { pid, host: hostname(), dir: resolved, ...startedOf(pid) }
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      const fd = openSync(file, 'wx', 0o600)
      writeSync(fd, `${JSON.stringify(me)}\n`)
      closeSync(fd)
      return () => {
        try {
          const owner = readOwner(file)
          if (owner?.pid === pid && owner.dir === resolved) unlinkSync(file)
        } catch {
          // already gone
        }
      }
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e
      const owner = readOwner(file)
      if (owner !== undefined && holdsIt(owner, me)) {
        throw new DataDirInUseError(
          `the embedded database in ${dir} is in use by process ${owner.pid} (a running \`mailroom serve\` or another command). ` +
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

/**
 * The directory as one path whatever the alias it is reached by: the real path of the directory if
 * it exists, else the real path of its parent and its name (a fresh directory is made later, and a
 * symbolic link to it would have to exist already to be followed).
 */
function canonicalDir(dir: string): string {
  const resolved = path.resolve(dir)
  try {
    return realpathSync(resolved)
  } catch {
    try {
      return path.join(realpathSync(path.dirname(resolved)), path.basename(resolved))
    } catch {
      return resolved
    }
  }
}

/** Whether the lock's owner is a live process, other than us, holding this directory on this host. */
function holdsIt(owner: LockOwner, me: LockOwner): boolean {
  if (owner.host !== me.host || owner.pid === me.pid) return false
  // A lock written before directories were made canonical names the path it was opened by.
  if (owner.dir !== me.dir && canonicalDir(owner.dir) !== me.dir) return false
  if (!isAlive(owner.pid)) return false
  // The id is in use, but by the process that wrote the lock only if it started at the same time.
  const now = startedOf(owner.pid).started
  return owner.started === undefined || now === undefined || now === owner.started
}

/**
 * The lock's owner. A lock written by an older version holds only a process id: it is taken as
 * this host's and this directory's (what it meant then).
 */
function readOwner(file: string): LockOwner | undefined {
  let text: string
  try {
    text = readFileSync(file, 'utf8').trim()
  } catch {
    return undefined
  }
  const validPid = (n: unknown): n is number => typeof n === 'number' && Number.isSafeInteger(n) && n > 0
  if (/^\d+$/.test(text)) {
    const pid = Number(text)
    return validPid(pid) ? { pid, host: hostname(), dir: file.replace(/\.lock$/, '') } : undefined
  }
  try {
    const o = JSON.parse(text) as Partial<LockOwner>
    if (!validPid(o.pid) || typeof o.host !== 'string' || typeof o.dir !== 'string') return undefined
    return { pid: o.pid, host: o.host, dir: o.dir, ...(typeof o.started === 'string' ? { started: o.started } : {}) }
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

/** Field 22 of /proc/<pid>/stat: when the process started. The command name (field 2) may hold spaces, so count from its `)`. */
function startedOf(pid: number): { started?: string } {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8')
    const started = stat.slice(stat.lastIndexOf(')') + 2).split(' ')[19]
    return started ? { started } : {}
  } catch {
    return {}
  }
}
