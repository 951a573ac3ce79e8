import pg from 'pg'
import { randomBytes } from 'node:crypto'
import { openDatabase, type DatabaseHandle } from '../../src/platform/db/database.js'
import { migrateToLatest } from '../../src/platform/db/migrate.js'

/**
 * A fresh, migrated database for one test file: in-memory PGlite by default, or a new database on
 * the PostgreSQL server of TEST_DATABASE_URL (created here, dropped by `drop`).
 */
export async function createTestDatabase(
  opts: { migrate?: boolean; statementTimeoutMs?: number } = {},
): Promise<{ handle: DatabaseHandle; url?: string; drop: () => Promise<void> }> {
  const adminUrl = process.env.TEST_DATABASE_URL
  if (!adminUrl) {
    const handle = await openDatabase({ kind: 'pglite', dir: 'memory' }, { guardTransactions: true })
    if (opts.migrate !== false) await migrateToLatest(handle.db)
    return { handle, drop: () => handle.close() }
  }
  const name = `mailroom_t_${randomBytes(6).toString('hex')}`
  const admin = new pg.Client({ connectionString: adminUrl })
  await admin.connect()
  await admin.query(`create database ${name}`)
  await admin.end()
  const url = new URL(adminUrl)
  url.pathname = `/${name}`
  if (opts.migrate !== false && opts.statementTimeoutMs) {
    const plain = await openDatabase({ kind: 'postgres', url: url.toString(), poolSize: 1 })
    await migrateToLatest(plain.db)
    await plain.close()
  }
  const handle = await openDatabase({
    kind: 'postgres',
    url: url.toString(),
    poolSize: 10,
    statementTimeoutMs: opts.statementTimeoutMs,
  })
  if (opts.migrate !== false && !opts.statementTimeoutMs) await migrateToLatest(handle.db)
  return {
    handle,
    url: url.toString(),
    async drop() {
      await handle.close()
      const a = new pg.Client({ connectionString: adminUrl })
      await a.connect()
      await a.query(`drop database if exists ${name} with (force)`)
      await a.end()
    },
  }
}
