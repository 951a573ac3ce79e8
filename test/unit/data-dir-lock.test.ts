import { spawn, spawnSync } from 'node:child_process'
import {
  cpSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  readdirSync,
  rmSync,
  symlinkSync,
  utimesSync,
  writeFileSync,
} from 'node:fs'
import { hostname, tmpdir } from 'node:os'
import path from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { DataDirInUseError, lockDataDir, UNREADABLE_LOCK_GRACE_MS } from '../../src/platform/db/data-dir-lock.js'

// Issue 31.2: only a live owner of the same directory on this host refuses; any other lock is stale.
const root = mkdtempSync(path.join(tmpdir(), 'mailroom-lock-'))
afterAll(() => rmSync(root, { recursive: true, force: true }))

let n = 0
const newDir = () => path.join(root, `db${++n}`)
const lockOf = (dir: string) => `${dir}.lock`
const owner = (dir: string) => JSON.parse(readFileSync(lockOf(dir), 'utf8')) as Record<string, unknown>

/** A live process other than this one (ended by the test). */
function liveProcess() {
  const child = spawn(process.execPath, ['-e', 'setTimeout(() => {}, 60_000)'], { stdio: 'ignore' })
  return { pid: child.pid!, stop: () => child.kill('SIGKILL') }
}

describe('the data directory lock', () => {
  it('records who holds it: process, host, directory and start time; unlock removes it', () => {
    const dir = newDir()
    const unlock = lockDataDir(dir)
    expect(owner(dir)).toMatchObject({ pid: process.pid, host: hostname(), dir })
    if (process.platform === 'linux') expect(owner(dir).started).toMatch(/^\d+$/)
    unlock()
    expect(() => readFileSync(lockOf(dir))).toThrow(/ENOENT/)
  })

  it('refuses while a live process of this host holds this very directory', () => {
    const dir = newDir()
    const other = liveProcess()
    try {
      writeFileSync(lockOf(dir), `${JSON.stringify({ pid: other.pid, host: hostname(), dir })}\n`)
      expect(() => lockDataDir(dir)).toThrow(DataDirInUseError)
      expect(() => lockDataDir(dir)).toThrow(`is in use by process ${other.pid}`)
      // A lock written by an older version (the process id alone) still refuses for a live owner.
      writeFileSync(lockOf(dir), `${other.pid}\n`)
      expect(() => lockDataDir(dir)).toThrow(DataDirInUseError)
    } finally {
      other.stop()
    }
  })

  it('refuses a live owner that reached the same directory by another path: a symbolic link to it or to its parent', () => {
    // serve via /srv/mailroom -> /data/mailroom, the CLI via /data/mailroom: one directory, one lock.
    const real = newDir()
    mkdirSync(path.join(real, 'data'), { recursive: true })
    const parentAlias = `${real}-alias`
    symlinkSync(real, parentAlias)
    const dirAlias = `${real}-data-link`
    symlinkSync(path.join(real, 'data'), dirAlias)
    const relative = path.relative(process.cwd(), path.join(real, 'data'))
    const aliases = [path.join(parentAlias, 'data'), dirAlias, relative, `${path.join(real, 'data')}/`]
    const other = liveProcess()
    try {
      for (const first of [path.join(real, 'data'), ...aliases]) {
        const unlock = lockDataDir(first, other.pid)
        for (const second of [path.join(real, 'data'), ...aliases])
          expect(() => lockDataDir(second), `${first} then ${second}`).toThrow(`is in use by process ${other.pid}`)
        unlock()
      }
      // A fresh directory (not made yet) reached through its parent's alias is the same one too.
      const unlock = lockDataDir(path.join(real, 'fresh'), other.pid)
      expect(() => lockDataDir(path.join(parentAlias, 'fresh'))).toThrow(DataDirInUseError)
      unlock()
    } finally {
      other.stop()
    }
  })

  it('starts beside a live original on a `cp -a` copy of its directory, also when the original is reached by a link', () => {
    const real = newDir()
    mkdirSync(path.join(real, 'data'), { recursive: true })
    const alias = `${real}-alias`
    symlinkSync(real, alias)
    const other = liveProcess()
    try {
      const unlock = lockDataDir(path.join(alias, 'data'), other.pid)
      cpSync(path.join(real, 'data'), path.join(real, 'copy'), { recursive: true })
      cpSync(`${path.join(real, 'data')}.lock`, `${path.join(real, 'copy')}.lock`)
      lockDataDir(path.join(real, 'copy'))()
      expect(() => lockDataDir(path.join(real, 'data'))).toThrow(DataDirInUseError)
      unlock()
    } finally {
      other.stop()
    }
  })

  it('takes over a lock whose process is gone', () => {
    const dir = newDir()
    const gone = spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))'], { encoding: 'utf8' })
    for (const text of [
      `${JSON.stringify({ pid: Number(gone.stdout), host: hostname(), dir })}\n`,
      `${gone.stdout}\n`,
    ]) {
      writeFileSync(lockOf(dir), text)
      const unlock = lockDataDir(dir)
      expect(owner(dir).pid).toBe(process.pid)
      unlock()
    }
  })

  it('takes over a lock copied with its directory, or written on another host, even if that process id lives here', () => {
    const other = liveProcess()
    try {
      const copied = newDir()
      // `cp -a data data2` of a running service: the lock in the copy names the original directory.
      writeFileSync(
        lockOf(copied),
        `${JSON.stringify({ pid: other.pid, host: hostname(), dir: `${copied}-original` })}\n`,
      )
      lockDataDir(copied)()
      const elsewhere = newDir()
      writeFileSync(
        lockOf(elsewhere),
        `${JSON.stringify({ pid: other.pid, host: `not-${hostname()}`, dir: elsewhere })}\n`,
      )
      const unlock = lockDataDir(elsewhere)
      expect(owner(elsewhere)).toMatchObject({ pid: process.pid, host: hostname() })
      unlock()
    } finally {
      other.stop()
    }
  })

  it.runIf(process.platform === 'linux')('takes over a lock whose process id now belongs to another program', () => {
    const dir = newDir()
    const other = liveProcess()
    try {
      // Same id, same host, same directory, but that process started at another time: not the owner.
      writeFileSync(lockOf(dir), `${JSON.stringify({ pid: other.pid, host: hostname(), dir, started: '1' })}\n`)
      lockDataDir(dir)()
    } finally {
      other.stop()
    }
  })

  it('holds a lock file that names no owner (empty or damaged) while it is young, and takes it over once old', () => {
    for (const text of ['', 'not a lock\n', '{"pid":']) {
      const dir = newDir()
      writeFileSync(lockOf(dir), text)
      // Maybe a starter writing it this very moment: not taken over.
      expect(() => lockDataDir(dir)).toThrow('is in use by another process')
      expect(readFileSync(lockOf(dir), 'utf8')).toBe(text)
      const old = (Date.now() - UNREADABLE_LOCK_GRACE_MS - 1_000) / 1000
      utimesSync(lockOf(dir), old, old)
      const unlock = lockDataDir(dir)
      expect(owner(dir).pid).toBe(process.pid)
      unlock()
    }
  })

  it('leaves no staging or stale files beside the lock', () => {
    const dir = newDir()
    const gone = spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))'], { encoding: 'utf8' })
    writeFileSync(lockOf(dir), `${JSON.stringify({ pid: Number(gone.stdout), host: hostname(), dir })}\n`)
    const unlock = lockDataDir(dir)
    expect(readdirSync(root).filter((f) => f.startsWith(path.basename(dir)))).toEqual([path.basename(lockOf(dir))])
    unlock()
  })

  // Starters racing for one directory, as processes do: exactly one wins, whether the lock is absent
  // (a starter must never see another's lock half written) or stale (two starters judging the same
  // dead owner must not both take it over).
  it.each(['absent', 'stale', 'old and damaged'] as const)(
    'lets exactly one of many racing starters lock it when the lock is %s',
    async (state) => {
      const dirs = [newDir(), newDir(), newDir()]
      const rounds = await race(dirs, 6, (dir) => {
        if (state === 'stale')
          writeFileSync(lockOf(dir), `${JSON.stringify({ pid: 2 ** 22 + 1, host: hostname(), dir })}\n`)
        if (state === 'old and damaged') {
          writeFileSync(lockOf(dir), '')
          utimesSync(lockOf(dir), 1, 1)
        }
      })
      for (const results of rounds) {
        expect(
          results.filter((r) => r === 'locked'),
          results.join(),
        ).toHaveLength(1)
        expect(results.filter((r) => r === 'refused')).toHaveLength(5)
      }
    },
  )
})

/**
 * `n` processes that, for each of `dirs` in turn, try to lock it at the same moment and hold it
 * until every one has answered (then the winner lets go); what each got, per directory. The same
 * processes race every round: starting them (tsx) is most of the cost, and each round is a new race.
 */
async function race(dirs: string[], n: number, prepare: (dir: string) => void): Promise<string[][]> {
  const script = `
    import { existsSync } from 'node:fs'
    import { lockDataDir } from ${JSON.stringify(path.resolve('src/platform/db/data-dir-lock.ts'))}
    const dirs = ${JSON.stringify(dirs)}
    const until = async (file) => { while (!existsSync(file)) await new Promise((r) => setTimeout(r, 1)) }
    process.stdout.write('ready\\n')
    for (const [round, dir] of dirs.entries()) {
      await until(dir + '.go')
      let result = 'locked'
      let unlock = () => {}
      try { unlock = lockDataDir(dir) } catch (e) { result = e.constructor.name === 'DataDirInUseError' ? 'refused' : String(e) }
      process.stdout.write(round + ' ' + result + '\\n')
      await until(dir + '.done')
      unlock()
    }
    process.stdin.on('end', () => process.exit(0)).resume()`
  const children = Array.from({ length: n }, () =>
    spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], {
      stdio: ['pipe', 'pipe', 'inherit'],
    }),
  )
  const lines = children.map((child) => {
    let out = ''
    const waiting: Array<() => void> = []
    child.stdout.on('data', (d: Buffer) => {
      out += d.toString()
      for (const look of waiting) look()
    })
    return (want: (l: string) => boolean) =>
      new Promise<string>((resolve) => {
        const look = () => {
          const found = out.split('\n').find(want)
          if (found !== undefined) resolve(found)
        }
        waiting.push(look)
        child.on('exit', () => resolve(`exited: ${out}`))
        look()
      })
  })
  // Every child is up (its module loaded) before the first start signal, so that they really race.
  await Promise.all(lines.map((line) => line((l) => l === 'ready')))
  const rounds: string[][] = []
  for (const [round, dir] of dirs.entries()) {
    prepare(dir)
    writeFileSync(`${dir}.go`, '')
    const answers = await Promise.all(
      lines.map((line) => line((l) => l.startsWith(`${round} `) || l.startsWith('exited'))),
    )
    rounds.push(answers.map((a) => a.replace(`${round} `, '')))
    writeFileSync(`${dir}.done`, '')
  }
  for (const child of children) child.stdin.end()
  await Promise.all(children.map((c) => new Promise((r) => (c.exitCode === null ? c.on('exit', r) : r(null)))))
  return rounds
}
