import pg from 'pg'
import { randomBytes } from 'node:crypto'
import { handleOnPGlite, openDatabase, type DatabaseHandle } from '../../src/platform/db/database.js'
import { giveBack, takeMigrated } from './pglite-pool.js'
import { cloneTemplate } from './template-db.js'

/**
 * A fresh, migrated database for one test file: in-memory PGlite by default (one of the worker's,
 * emptied back to the template after its last use: pglite-pool.ts), or a new database on
 * the PostgreSQL server of TEST_DATABASE_URL (created here, dropped by `drop`). Migrated means a
 * copy of the template migrated once per run (template-db.ts); `migrate: false` gives an empty one.
 */
export async function createTestDatabase(
  opts: { migrate?: boolean; statementTimeoutMs?: number } = {},
): Promise<{ handle: DatabaseHandle; url?: string; drop: () => Promise<void> }> {
  const migrate = opts.migrate !== false
  const adminUrl = process.env.TEST_DATABASE_URL
  if (!adminUrl && !migrate) {
    const handle = await openDatabase({ kind: 'pglite', dir: 'memory' }, { guardTransactions: true })
    return { handle, drop: () => handle.close() }
  }
  if (!adminUrl) {
    // One of the worker's embedded databases, emptied after the last file that used it (pglite-pool.ts).
    const pooled = await takeMigrated()
    const handle = handleOnPGlite(pooled.pglite, { guardTransactions: true })
    let dropped: Promise<void> | undefined
    const drop = async () => {
      await handle.close()
      await giveBack(pooled)
    }
    return { handle, drop: () => (dropped ??= drop()) }
  }
  const name = `mailroom_t_${randomBytes(6).toString('hex')}`
  if (migrate) await cloneTemplate(adminUrl, name)
  else await adminQuery(adminUrl, `create database ${name}`)
  const url = new URL(adminUrl)
  url.pathname = `/${name}`
  const handle = await openDatabase({
    kind: 'postgres',
    url: url.toString(),
    poolSize: 10,
    statementTimeoutMs: opts.statementTimeoutMs,
  })
  return {
    handle,
    url: url.toString(),
    async drop() {
      await handle.close()
      await adminQuery(adminUrl, `drop database if exists ${name} with (force)`)
    },
  }
}

async function adminQuery(adminUrl: string, query: string): Promise<void> {
  const admin = new pg.Client({ connectionString: adminUrl })
  await admin.connect()
  try {
    await admin.query(query)
  } finally {
    await admin.end()
  }
}
