import type { Config } from '../config.js'
import { ConfigError, loadConfig } from '../config.js'
import { DataDirInUseError } from '../../platform/db/data-dir-lock.js'
import { DataDirDamagedError, DataDirExistsError } from '../../platform/db/embedded-dir.js'
import { CommandError, UsageError } from './args.js'
import { PortInUseError } from './port.js'
import { WrongSecretError } from '../secrets.js'

const HELP = `mailroom: package receiving service

usage: mailroom <command>
  serve                                   run the HTTP service (npm start runs it)
  migrate [--down]                        bring the database schema up to date (or one step down)
  clients create --subscription NAME [--name LABEL] [--json]
  clients list [--json]
  clients disable ID | clients enable ID
  users create --subscription NAME --email E --role admin|clerk [--password P] [--name N] [--site SITE_ID] [--json]
                                          a console user; without --password prints a one-time password
  users list [--json]
  users disable ID | users enable ID      disabling signs the user out everywhere at once
  users password ID [--password P] [--json]
  sso domains [--json] | sso grant DOMAIN SUB_ID | sso revoke DOMAIN   single sign-on email domains (docs/sso.md)
                                          a new password (printed once when generated); signs the user out everywhere
  keys rotate                             start signing with a new key
  worker                                  run only the webhook delivery worker
  images migrate [--from local] [--to postgres|s3] [--keep]
                                          move stored image bytes into the configured store (BLOB_STORE)
  scim-token create --subscription NAME [--name LABEL] [--json]   a SCIM token for an identity provider, printed once
  backup FILE [--passphrase-file F | --no-secret]
                                          the embedded database (while it serves, too), its local images and the
                                          master secret (beside it in FILE.secret, or sealed in it); docs/backup.md
  restore FILE [--passphrase-file F]      a backup into MAILROOM_DATA_DIR (without a database yet)
  restore --mark                          record that the database is a restored one (after pg_restore); before serve
  held [--json]                           what a restore held back (emails, webhooks pending in the backup)
  held resend|drop emails|webhooks        send the held kind now, or never
  seed [--packages N] [--contacts N] [--subscription NAME] [--json]
                                          generate a realistic subscription (locations, sites, contacts, packages with histories)

Configuration comes from the environment: every key in docs/configuration.md and .env.example.`

async function main(argv: string[]): Promise<void> {
  const [command, ...rest] = argv
  // No command prints the help rather than starting a server a newcomer did not ask for.
  if (command === undefined || command === 'help' || command === '--help' || command === '-h') {
    process.stdout.write(`${HELP}\n`)
    return
  }
  const load = COMMANDS[command]
  if (!load) throw new UsageError(`unknown command ${command}`)
  const config = loadConfig()
  const run = await load()
  return run(config, rest)
}

type Command = (config: Readonly<Config>, args: string[]) => Promise<void>

/**
 * Each command's module is loaded when it is asked for: `mailroom help` or `users list` does not
 * load the HTTP service, the image decoders or the S3 client (loading everything cost 4 s of CPU
 * before the help was printed).
 */
const COMMANDS: Record<string, () => Promise<Command>> = {
  serve: async () => (await import('./serve.js')).serve,
  migrate: async () => (await import('./migrate.js')).migrateCommand,
  clients: async () => (await import('./clients.js')).clientsCommand,
  users: async () => (await import('./users.js')).usersCommand,
  sso: async () => (await import('./sso.js')).ssoCommand,
  keys: async () => (await import('./keys.js')).keysCommand,
  images: async () => (await import('./images.js')).imagesCommand,
  seed: async () => (await import('./seed.js')).seedCommand,
  worker: async () => (await import('./worker.js')).workerCommand,
  'scim-token': async () => (await import('./scim.js')).scimTokenCommand,
  backup: async () => (await import('./backup.js')).backupCommand,
  restore: async () => (await import('./restore.js')).restoreCommand,
  held: async () => (await import('./held.js')).heldCommand,
}

main(process.argv.slice(2)).catch((e: unknown) => {
  if (e instanceof ConfigError) {
    process.stderr.write(`${e.message}\n`)
    process.exit(78)
  }
  if (e instanceof PortInUseError || e instanceof WrongSecretError) {
    process.stderr.write(`mailroom: ${e.message}\n`)
    process.exit(78)
  }
  if (e instanceof DataDirInUseError) {
    process.stderr.write(`mailroom: ${e.message}\n`)
    process.exit(75)
  }
  if (e instanceof DataDirDamagedError) {
    process.stderr.write(`mailroom: ${e.message}\n`)
    process.exit(74)
  }
  if (e instanceof DataDirExistsError) {
    process.stderr.write(`mailroom: ${e.message}\n`)
    process.exit(73)
  }
  if (e instanceof CommandError) {
    process.stderr.write(`mailroom: ${e.message}\n`)
    process.exit(e.exitCode)
  }
  if (e instanceof UsageError) {
    process.stderr.write(`mailroom: ${e.message}\n\n${HELP}\n`)
    process.exit(2)
  }
  process.stderr.write(`mailroom: ${e instanceof Error ? (e.stack ?? e.message) : String(e)}\n`)
  process.exit(1)
})
