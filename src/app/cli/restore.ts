import { cpSync, existsSync, mkdirSync, readdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs'
import path from 'node:path'
import type { Config } from '../config.js'
import { masterSecretFile, readMasterSecret } from '../secrets.js'
import { markRestored, type RestoreMark } from '../restore/held-work.js'
import { secretOpens } from '../restore/secret-check.js'
import { openDatabase, restoreEmbedded } from '../../platform/db/database.js'
import { migrateToLatest } from '../../platform/db/migrate.js'
import { BackupFileError, openBackup, type OpenedBackup } from '../../platform/backup/archive.js'
import { openSecret, WrongPassphraseError } from '../../platform/backup/sealed-secret.js'
import { localImagesDir } from '../../images/index.js'
import { CommandError, parse, UsageError } from './args.js'
import { readPassphrase, secretFileOf } from './backup.js'

/**
 * `mailroom restore FILE [--passphrase-file F]`: a backup of the embedded database into
 * MAILROOM_DATA_DIR, which must not hold a database yet; `mailroom restore --mark`: records that
 * the configured database is a restored one (after pg_restore, or a copied data directory), before
 * the service starts on it. Either way the restore holds the emails and webhooks that were pending
 * in the backup and are older than RESTORE_HOLD_AFTER_MINUTES, for `mailroom held` (docs/backup.md).
 */
export async function restoreCommand(config: Readonly<Config>, args: string[]): Promise<void> {
  const { values, positionals } = parse(args, {
    'passphrase-file': { type: 'string' },
    mark: { type: 'boolean', default: false },
  })
  if (values.mark) {
    if (positionals.length > 0 || values['passphrase-file']) throw new UsageError('restore --mark takes nothing else')
    return markCommand(config)
  }
  const file = positionals[0]
  if (!file || positionals.length > 1) throw new UsageError('restore FILE')
  if (config.database.kind === 'postgres')
    throw new CommandError(
      'on PostgreSQL, restore with pg_restore, then run `mailroom restore --mark` before the service starts: see docs/backup.md',
      2,
    )
  const dbDir = config.database.dir
  if (holdsSomething(dbDir))
    throw new CommandError(
      `${dbDir} already holds a database: restore into a data directory without one (MAILROOM_DATA_DIR), or move it away first`,
      73,
    )
  const passphrase = values['passphrase-file'] ? readPassphrase(values['passphrase-file']) : undefined
  mkdirSync(config.dataDir, { recursive: true })
  let backup: OpenedBackup
  try {
    backup = await openBackup(path.resolve(file), path.join(config.dataDir, `.restore-${process.pid}`))
  } catch (e) {
    if (e instanceof BackupFileError) throw new CommandError(e.message, 65)
    throw e
  }
  try {
    const { secret, source } = secretOf(config, backup, path.resolve(file), passphrase)
    let mark: RestoreMark | undefined
    // Checked, migrated and marked before the directory is moved into place: it is never there
    // unmarked, nor with a secret that does not open it.
    await restoreEmbedded(dbDir, backup.database, async (db) => {
      if (!(await secretOpens(db, secret)))
        throw new CommandError(
          `${source} is not the master secret this backup was taken with (its signing key does not open): nothing was restored; give the backup's own secret`,
          78,
        )
      // The secret before the directory: a service started on the restored database finds the one that opens it.
      if (!config.masterSecret) writeFileSync(masterSecretFile(config.dataDir), `${secret}\n`, { mode: 0o600 })
      if (backup.imagesDir) moveImagesInto(backup.imagesDir, localImagesDir(config.dataDir))
      await migrateToLatest(db)
      mark = await markRestored(db, {
        now: new Date(),
        holdAfterSeconds: config.restoreHoldAfterMinutes * 60,
        snapshotAt: new Date(backup.manifest.takenAt),
        source: 'backup',
      })
    })
    process.stdout.write(`restored ${path.resolve(file)} (taken ${backup.manifest.takenAt}) into ${config.dataDir}\n`)
    report(mark!, config.restoreHoldAfterMinutes)
  } finally {
    backup.dispose()
  }
}

/** `mailroom restore --mark`: the configured database is a restored one. */
async function markCommand(config: Readonly<Config>): Promise<void> {
  const database = await openDatabase(config.database)
  try {
    await migrateToLatest(database.db)
    const mark = await markRestored(database.db, {
      now: new Date(),
      holdAfterSeconds: config.restoreHoldAfterMinutes * 60,
      source: 'mark',
    })
    process.stdout.write(
      `marked the ${database.engine === 'postgres' ? 'PostgreSQL' : 'embedded'} database as restored\n`,
    )
    report(mark, config.restoreHoldAfterMinutes)
  } finally {
    await database.close()
  }
}

function report(mark: RestoreMark, minutes: number): void {
  const { emails, webhooks } = mark.held
  process.stdout.write(
    emails + webhooks === 0
      ? `nothing pending for more than ${minutes} min was held\n`
      : `held, pending for more than ${minutes} min and possibly sent before: ${emails} emails, ${webhooks} webhooks. ` +
          'Decide with `mailroom held resend emails|webhooks` or `mailroom held drop emails|webhooks` (docs/backup.md)\n',
  )
}

/** The backup's master secret, checked against the one configured: a mismatch would leave a database nothing opens. */
function secretOf(
  config: Readonly<Config>,
  backup: OpenedBackup,
  file: string,
  passphrase: string | undefined,
): { secret: string; source: string } {
  let fromBackup: string | undefined
  const { secret } = backup.manifest
  if (secret === 'sealed') {
    if (!passphrase)
      throw new CommandError(
        'the master secret is sealed in this backup: give its passphrase with --passphrase-file',
        2,
      )
    try {
      fromBackup = openSecret(backup.sealedSecret ?? '', passphrase)
    } catch (e) {
      if (e instanceof WrongPassphraseError) throw new CommandError(`${e.message} (--passphrase-file)`, 78)
      throw e
    }
  } else if (secret === 'beside') {
    const beside = secretFileOf(file)
    if (existsSync(beside)) fromBackup = readFileSync(beside, 'utf8').trim()
    else if (!config.masterSecret)
      throw new CommandError(
        `${beside} is missing and MAILROOM_SECRET is unset: put the backup's secret file beside it, or set MAILROOM_SECRET to the master secret it was taken with`,
        78,
      )
  } else if (!config.masterSecret)
    throw new CommandError(
      'this backup holds no master secret (taken with --no-secret): set MAILROOM_SECRET to the one it was taken with',
      78,
    )
  if (fromBackup !== undefined && config.masterSecret && fromBackup !== config.masterSecret)
    throw new CommandError(
      "MAILROOM_SECRET is not the master secret of this backup: set it to the backup's, or unset it to use the backup's",
      78,
    )
  const existing = config.masterSecret ? undefined : readMasterSecret(config)
  if (existing !== undefined && fromBackup !== undefined && existing !== fromBackup)
    throw new CommandError(
      `${masterSecretFile(config.dataDir)} holds another master secret than the backup's: restore into an empty MAILROOM_DATA_DIR`,
      78,
    )
  if (fromBackup === undefined) return { secret: config.masterSecret!, source: 'MAILROOM_SECRET' }
  return { secret: fromBackup, source: secret === 'sealed' ? 'the secret sealed in the backup' : secretFileOf(file) }
}

function holdsSomething(dir: string): boolean {
  try {
    return readdirSync(dir).length > 0
  } catch {
    return false
  }
}

/** The backup's images into the local store: moved whole when there is none yet, else only those missing. */
function moveImagesInto(from: string, to: string): void {
  if (!existsSync(to)) {
    mkdirSync(path.dirname(to), { recursive: true })
    renameSync(from, to)
  } else cpSync(from, to, { recursive: true, force: false, errorOnExist: false })
}
