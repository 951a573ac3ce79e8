import { ConfigError, loadConfig } from '../config.js'
import { DataDirInUseError } from '../../platform/db/data-dir-lock.js'
import { DataDirDamagedError, DataDirExistsError } from '../../platform/db/embedded-dir.js'
import { CommandError, UsageError } from './args.js'
import { backupCommand } from './backup.js'
import { heldCommand } from './held.js'
import { restoreCommand } from './restore.js'
import { clientsCommand } from './clients.js'
import { imagesCommand } from './images.js'
import { keysCommand } from './keys.js'
import { migrateCommand } from './migrate.js'
import { seedCommand } from './seed.js'
import { serve } from './serve.js'
import { usersCommand } from './users.js'
import { ssoCommand } from './sso.js'
import { workerCommand } from './worker.js'
import { scimTokenCommand } from './scim.js'
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
  const config = loadConfig()
  switch (command) {
    case 'serve':
      return serve(config)
    case 'migrate':
      return migrateCommand(config, rest)
    case 'clients':
      return clientsCommand(config, rest)
    case 'users':
      return usersCommand(config, rest)
    case 'sso':
      return ssoCommand(config, rest)
    case 'keys':
      return keysCommand(config, rest)
    case 'images':
      return imagesCommand(config, rest)
    case 'seed':
      return seedCommand(config, rest)
    case 'worker':
      return workerCommand(config)
    case 'scim-token':
      return scimTokenCommand(config, rest)
    case 'backup':
      return backupCommand(config, rest)
    case 'restore':
      return restoreCommand(config, rest)
    case 'held':
      return heldCommand(config, rest)
    default:
      throw new UsageError(`unknown command ${command}`)
  }
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
