import { existsSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs'
import path from 'node:path'
import type { Config } from '../config.js'
import { masterSecretFile, readMasterSecret } from '../secrets.js'
import { secretOpens } from '../restore/secret-check.js'
import { openDatabase } from '../../platform/db/database.js'
import { DataDirInUseError } from '../../platform/db/data-dir-lock.js'
import { askControlSocket, ControlSocketError, controlSocketPath } from '../../platform/db/control-socket.js'
import { writeBackup, type BackupManifest } from '../../platform/backup/archive.js'
import { sealSecret } from '../../platform/backup/sealed-secret.js'
import { localImagesDir } from '../../images/index.js'
import { CommandError, parse, UsageError } from './args.js'

/** Where a backup's master secret goes when it is not sealed in it. */
export const secretFileOf = (file: string) => `${file}.secret`

/** A passphrase file's first line (a trailing newline is not part of the passphrase). */
export function readPassphrase(file: string): string {
  let text: string
  try {
    text = readFileSync(file, 'utf8')
  } catch (e) {
    throw new CommandError(`--passphrase-file ${file}: ${(e as Error).message}`, 2)
  }
  const passphrase = text.split(/\r?\n/)[0] ?? ''
  if (passphrase.length < 12)
    throw new CommandError(`--passphrase-file ${file}: a passphrase of 12 characters or more`, 2)
  return passphrase
}

/**
 * `mailroom backup FILE [--passphrase-file F | --no-secret]`: the embedded database, whole and
 * consistent, while the service runs or not (docs/backup.md). With the service running, its
 * snapshot is asked for on the control socket (the database lives inside that process); stopped,
 * the database is opened here. The local images go in too; the master secret is written beside
 * the file (FILE.secret, mode 0600), or sealed in it with a passphrase, or left out.
 * On PostgreSQL the database's own tools do it: pg_dump (docs/backup.md).
 */
export async function backupCommand(config: Readonly<Config>, args: string[]): Promise<void> {
  const { values, positionals } = parse(args, {
    'passphrase-file': { type: 'string' },
    'no-secret': { type: 'boolean', default: false },
  })
  const file = positionals[0]
  if (!file || positionals.length > 1) throw new UsageError('backup FILE')
  if (values['passphrase-file'] && values['no-secret'])
    throw new UsageError('--passphrase-file and --no-secret: one or the other')
  if (config.database.kind === 'postgres')
    throw new CommandError(
      'on PostgreSQL, back up with pg_dump and keep the master secret (MAILROOM_SECRET) with it: see docs/backup.md',
      2,
    )
  const target = path.resolve(file)
  const passphrase = values['passphrase-file'] ? readPassphrase(values['passphrase-file']) : undefined
  const secret = values['no-secret'] ? undefined : readMasterSecret(config)
  if (!values['no-secret'] && secret === undefined)
    throw new CommandError(
      `no master secret to back up: MAILROOM_SECRET is unset and ${config.dataDir}/master.secret is missing (--no-secret to leave it out)`,
      78,
    )
  const takenAt = new Date()
  const database = await snapshotOf(config.database.dir)
  if (secret !== undefined) await checkSecret(config, database, secret)
  const manifest: BackupManifest = {
    format: 1,
    takenAt: takenAt.toISOString(),
    engine: 'pglite',
    images: existsSync(localImagesDir(config.dataDir)),
    secret: secret === undefined ? 'none' : passphrase ? 'sealed' : 'beside',
  }
  // The secret beside it first, whole (written under another name, then renamed): a backup file is
  // never in place without the secret that restores it.
  const secretFile = secretFileOf(target)
  if (manifest.secret === 'beside') {
    const staging = `${secretFile}.${process.pid}.tmp`
    writeFileSync(staging, `${secret}\n`, { mode: 0o600 })
    renameSync(staging, secretFile)
  } else rmSync(secretFile, { force: true })
  await writeBackup(target, {
    manifest,
    database,
    imagesDir: localImagesDir(config.dataDir),
    ...(secret !== undefined && passphrase ? { sealedSecret: sealSecret(secret, passphrase) } : {}),
  })
  process.stdout.write(
    `backup written to ${target} (database ${Math.round(database.length / 1024)} KiB${manifest.images ? ', local images' : ''})\n` +
      (manifest.secret === 'beside'
        ? `master secret written beside it to ${secretFile}: keep the two together, and away from anyone who must not read the data\n`
        : manifest.secret === 'sealed'
          ? 'master secret sealed in it with the passphrase: without the passphrase it cannot be restored\n'
          : 'master secret not included (--no-secret): the restore needs MAILROOM_SECRET\n'),
  )
}

/**
 * The secret about to be saved opens the snapshot (a cron job with an old MAILROOM_SECRET would
 * otherwise write, every night, a backup nothing restores). Checked on the snapshot itself, opened
 * in memory: what is checked is what is saved, whether the service runs or not.
 */
async function checkSecret(config: Readonly<Config>, snapshot: Buffer, secret: string): Promise<void> {
  const copy = await openDatabase({ kind: 'pglite', dir: 'memory', from: new Blob([snapshot]) })
  try {
    if (await secretOpens(copy.db, secret)) return
  } finally {
    await copy.close()
  }
  const source = config.masterSecret ? 'MAILROOM_SECRET' : masterSecretFile(config.dataDir)
  throw new CommandError(
    `${source} is not the master secret this database was made with (its signing key does not open): the backup would not restore; set ${config.masterSecret ? 'it' : 'MAILROOM_SECRET'} to the service's master secret and run the backup again`,
    78,
  )
}

/** A control socket that cannot be asked is one line for the operator (exit 75: try again once it answers). */
export function oneLine(e: unknown): never {
  if (e instanceof ControlSocketError) throw new CommandError(e.message, 75)
  throw e
}

/** The database's snapshot: from the running service if one answers on the control socket, else read here. */
async function snapshotOf(dbDir: string): Promise<Buffer> {
  const socket = controlSocketPath(dbDir)
  const asked = await askControlSocket(socket, 'GET', '/backup').catch(oneLine)
  if (asked) {
    if (asked.status !== 200)
      throw new CommandError(`the running service could not take the snapshot: ${asked.body.toString()}`)
    return asked.body
  }
  if (!existsSync(path.join(dbDir, 'PG_VERSION')))
    throw new CommandError(`no embedded database in ${dbDir} to back up`, 2)
  let database
  try {
    database = await openDatabase({ kind: 'pglite', dir: dbDir })
  } catch (e) {
    if (e instanceof DataDirInUseError)
      throw new CommandError(
        `${e.message} It does not answer backups on ${socket} (a command other than serve, or a socket path too long): stop it and run the backup again.`,
        75,
      )
    throw e
  }
  try {
    return Buffer.from(await (await database.dumpDataDir!()).arrayBuffer())
  } finally {
    await database.close()
  }
}
