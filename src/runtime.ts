import type { Config } from './config.js'
import { createContext, type AppContext } from './context.js'
import { openDatabase } from './db/database.js'
import { migrateToLatest } from './db/migrate.js'
import { loadMasterSecret } from './secrets.js'
import { systemClock } from './shared/clock.js'

/** Opens the database, brings the schema up to date and wires the services: what every command needs. */
export async function openRuntime(config: Readonly<Config>, opts: { migrate?: boolean } = {}): Promise<AppContext> {
  const { secret } = loadMasterSecret(config)
  const database = await openDatabase(config.database)
  try {
    if (opts.migrate !== false) await migrateToLatest(database.db)
    const ctx = createContext({ config, database, masterSecret: secret, clock: systemClock })
    await ctx.keys.init()
    return ctx
  } catch (e) {
    await database.close()
    throw e
  }
}
