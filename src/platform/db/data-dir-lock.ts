import { randomBytes } from 'node:crypto'
import {
  closeSync,
  fstatSync,
  linkSync,
  openSync,
  readFileSync,
  realpathSync,
  unlinkSync,
  writeFileSync,
} from 'node:fs'
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

/** A lock file as read: its owner (undefined when it names none), its text and which file it was. */
interface LockSeen {
  owner: LockOwner | undefined
  text: string
  ino: number
  ageMs: number
}

/**
 * A lock file that names no owner (empty or damaged) is taken as held while it is this young: it may
 * be one being written by a version that wrote in place. Older, it is left over, and taken over.
 */
export const UNREADABLE_LOCK_GRACE_MS = 5_000

/**
 * PGlite is PostgreSQL inside this process: a second process opening the same directory does not
 * wait or fail, it silently writes over the first one's pages (seen: a client created from the CLI
 * while `serve` ran was lost, and the directory no longer opened). The lock file turns that into a
 * clear refusal. Only a live owner of this very directory on this host refuses; a lock left by a
 * process that died, by a process id now reused by another program, or copied along with the data
 * directory (`cp -a` of a running service: the lock names the original's directory or host) is
 * stale and taken over.
 *
 * Every step is atomic, so that two starters never both win: the lock appears whole (written under
 * another name, then linked into place, which fails if one exists), and a stale lock is removed
 * only under a takeover mutex, after checking it is still the very lock judged stale.
 */
export function lockDataDir(dir: string, pid = process.pid): () => void {
  const canonical = canonicalDir(dir)
  // Beside the directory, not in it: a fresh database directory must stay empty for initdb. Named
  // from the canonical path, so that every alias of the directory finds the same lock file.
  const file = `${canonical}.lock`
  const me: LockOwner = { pid, host: hostname(), dir: canonical, ...startedOf(pid) }
  const text = `${JSON.stringify(me)}\n`
  for (let attempt = 0; attempt < 3; attempt++) {
    if (place(file, text)) {
      return () => {
        try {
          const owner = readLock(file)?.owner
          if (owner?.pid === pid && owner.dir === canonical) unlinkSync(file)
        } catch {
          // already gone
        }
      }
    }
    const seen = readLock(file)
    if (seen === undefined) continue // gone meanwhile: try again
    if (seen.owner === undefined ? seen.ageMs < UNREADABLE_LOCK_GRACE_MS : holdsIt(seen.owner, me)) {
      throw new DataDirInUseError(
        `the embedded database in ${dir} is in use by ${seen.owner ? `process ${seen.owner.pid}` : 'another process'} (a running \`mailroom serve\` or another command). ` +
          'Stop that process first, or run every process against PostgreSQL (DATABASE_URL).',
      )
    }
    if (!takeOver(file, seen)) {
      throw new DataDirInUseError(
        `the embedded database in ${dir} is being locked by another process at the same time; try again`,
      )
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

/** Writes the lock under a unique name, then links it into place: false if a lock is there already. */
function place(file: string, text: string): boolean {
  const staging = `${file}.${process.pid}.${randomBytes(6).toString('hex')}.tmp`
  writeFileSync(staging, text, { mode: 0o600 })
  try {
    linkSync(staging, file)
    return true
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e
    return false
  } finally {
    unlinkSync(staging)
  }
}

/** A takeover mutex older than this was left by a starter that died mid-takeover (one takes milliseconds). */
const TAKEOVER_GRACE_MS = 10_000

/**
 * Removes the stale lock `seen`, under a takeover mutex (a file placed as the lock is: one holder at
 * a time). Without it, a starter that judged the old lock stale could move away the fresh lock of
 * another that had just taken over, and a third could place its own meanwhile: two holders (seen
 * with six racing starters on a loaded machine). Under the mutex the lock is read again and removed
 * only if it is still the very lock judged stale, whose owner is gone and so never removes it
 * itself. Returns false when another starter holds the mutex (the caller refuses: try again).
 */
function takeOver(file: string, seen: LockSeen): boolean {
  const mutex = `${file}.takeover`
  if (!place(mutex, `${process.pid}\n`)) {
    const held = readLock(mutex)
    if (held !== undefined && held.ageMs > TAKEOVER_GRACE_MS) {
      try {
        unlinkSync(mutex)
      } catch {
        // removed by another starter meanwhile
      }
    }
    return false
  }
  try {
    const now = readLock(file)
    // Gone, or another lock now: the caller places or judges again.
    if (now === undefined || now.ino !== seen.ino || now.text !== seen.text) return true
    unlinkSync(file)
    return true
  } finally {
    unlinkSync(mutex)
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

/** The lock file, read through one descriptor so that its text and identity agree; undefined if there is none. */
function readLock(file: string): LockSeen | undefined {
  let fd: number
  try {
    fd = openSync(file, 'r')
  } catch {
    return undefined
  }
  try {
    const stat = fstatSync(fd)
    const text = readFileSync(fd, 'utf8')
    return { owner: parseOwner(text.trim(), file), text, ino: stat.ino, ageMs: Date.now() - stat.mtimeMs }
  } finally {
    closeSync(fd)
  }
}

/**
 * The lock's owner. A lock written by an older version holds only a process id: it is taken as
 * this host's and this directory's (what it meant then).
 */
function parseOwner(text: string, file: string): LockOwner | undefined {
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
