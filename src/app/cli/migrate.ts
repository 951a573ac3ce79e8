import type { Config } from '../config.js'
import { openDatabase } from '../../platform/db/database.js'
import { migrateDown, migrateToLatest } from '../../platform/db/migrate.js'
import { parse } from './args.js'

/** `mailroom migrate [--down]`. Serve migrates at boot too; this is for deploy pipelines. */
export async function migrateCommand(config: Readonly<Config>, args: string[]): Promise<void> {
  const { values } = parse(args, { down: { type: 'boolean', default: false } })
  const database = await openDatabase(config.database)
  try {
    const done = values.down ? await migrateDown(database.db) : await migrateToLatest(database.db)
    process.stdout.write(done.length ? `${done.join('\n')}\n` : 'schema is up to date\n')
  } finally {
    await database.close()
  }
}
