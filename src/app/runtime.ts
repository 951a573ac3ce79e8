import type { Config } from './config.js'
import { createContext, type AppContext } from './context.js'
import { openDatabase } from '../platform/db/database.js'
import { migrateToLatest } from '../platform/db/migrate.js'
import { explainSecretFailure, loadMasterSecret } from './secrets.js'
import { systemClock } from '../platform/kit/clock.js'

/**
 * Opens the database, brings the schema up to date and wires the services: what every command needs.
 * `statementTimeout`: the API's bound on every statement (DB_STATEMENT_TIMEOUT_MS, PostgreSQL only;
 * PGlite runs a statement to its end on the process's one thread and cannot interrupt it). Migrations
 * then run first on a connection of their own without it: an index build may rightly take minutes.
 */
export async function openRuntime(
  config: Readonly<Config>,
  opts: { migrate?: boolean; statementTimeout?: boolean } = {},
): Promise<AppContext> {
  const { secret, generated } = loadMasterSecret(config)
  const timeoutMs = opts.statementTimeout && config.database.kind === 'postgres' ? config.limits.statementTimeoutMs : 0
  let migrate = opts.migrate !== false
  if (migrate && timeoutMs > 0) {
    const plain = await openDatabase(config.database)
    try {
      await migrateToLatest(plain.db)
    } finally {
      await plain.close()
    }
    migrate = false
  }
  const database = await openDatabase(
    config.database.kind === 'postgres' ? { ...config.database, statementTimeoutMs: timeoutMs } : config.database,
  )
  try {
    if (migrate) await migrateToLatest(database.db)
    const ctx = createContext({ config, database, masterSecret: secret, clock: systemClock })
    await ctx.keys.init()
    return ctx
  } catch (e) {
    await database.close()
    throw explainSecretFailure(e, config, generated)
  }
}
