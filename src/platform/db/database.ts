import { PGlite } from '@electric-sql/pglite'
import { pg_trgm } from '@electric-sql/pglite/contrib/pg_trgm'
import { PGliteDialect } from 'kysely-pglite-dialect'
import { Kysely, PostgresDialect, type DatabaseConnection, type Driver, type TransactionSettings } from 'kysely'
import pg from 'pg'
import { mkdirSync } from 'node:fs'
import path from 'node:path'
import type { Database } from './tables.js'
import { guardTransactions, transactionScope } from './transaction.js'
import { lockDataDir } from './data-dir-lock.js'
import { openEmbeddedDir } from './embedded-dir.js'
import { preparedStatementsFor, StatementNames } from './prepared-statements.js'

export type Db = Kysely<Database>
export type DbEngine = 'postgres' | 'pglite'

export interface DatabaseHandle {
  db: Db
  engine: DbEngine
  close(): Promise<void>
}

export type DatabaseTarget =
  /** statementTimeoutMs: the longest any statement may run, and wait for a pool connection (0 or absent: unbounded). */
  | { kind: 'postgres'; url: string; poolSize: number; statementTimeoutMs?: number }
  /**
   * dir: a directory, or 'memory' for a database that lives and dies with the process; an in-memory
   * one may start `from` a data directory dumped by PGlite's dumpDataDir (the tests' migrated template).
   */
  | { kind: 'pglite'; dir: string; from?: Blob }

// timestamptz as JS Date, bigint (int8) as number: our counters stay far below 2^53. A date (1082)
// stays its ISO text: a calendar day has no time zone, and a JS Date at local midnight would shift it.
pg.types.setTypeParser(20, (v) => Number(v))
pg.types.setTypeParser(1082, (v) => v)

export interface OpenOptions {
  /** Refuse, at once, a query on the plain database from inside a transaction (tests; see transactionScope). */
  guardTransactions?: boolean
}

export async function openDatabase(target: DatabaseTarget, options: OpenOptions = {}): Promise<DatabaseHandle> {
  if (target.kind === 'postgres') {
    const bound = target.statementTimeoutMs
      ? { statement_timeout: target.statementTimeoutMs, connectionTimeoutMillis: target.statementTimeoutMs }
      : {}
    const pool = new pg.Pool({
      connectionString: target.url,
      max: target.poolSize,
      idleTimeoutMillis: 30_000,
      ...bound,
    })
    // An idle client losing its connection must not crash the process; the pool replaces it.
    pool.on('error', () => {})
    const names = new StatementNames()
    pool.on('connect', (client) => preparedStatementsFor(client, names))
    const db = new Kysely<Database>({ dialect: new PostgresDialect({ pool }) })
    return { db, engine: 'postgres', close: () => db.destroy() }
  }
  let unlock = () => {}
  if (target.dir !== 'memory') {
    // The directory itself is made, whole, by openEmbeddedDir; the lock file lives beside it.
    mkdirSync(path.dirname(path.resolve(target.dir)), { recursive: true })
    unlock = lockDataDir(target.dir)
  }
  const from = target.dir === 'memory' ? target.from : undefined
  const create = (dataDir?: string) =>
    PGlite.create({
      ...(dataDir ? { dataDir } : {}),
      ...(from ? { loadDataDir: from } : {}),
      extensions: { pg_trgm },
      parsers: { 20: (v: string) => Number(v), 1082: (v: string) => v },
    })
  let pglite: PGlite
  try {
    pglite = target.dir === 'memory' ? await create() : await openEmbeddedDir(path.resolve(target.dir), create)
  } catch (e) {
    unlock()
    throw e
  }
  const db = new Kysely<Database>({ dialect: new SerializedPGliteDialect(pglite) })
  if (options.guardTransactions) guardTransactions(db)
  return {
    db,
    engine: 'pglite',
    close: async () => {
      try {
        await db.destroy()
      } finally {
        unlock()
      }
    },
  }
}

/**
 * PGlite is one connection: each transaction (and each lone query) must have it to itself. The
 * dialect's driver queues acquirers; this wrapper keeps that order explicit and adds the test guard
 * that refuses a query on the plain database from inside a transaction (it would wait forever).
 * (kysely-pglite-dialect rather than Kysely 0.29's built-in dialect: 0.29 requires Node 22.)
 */
class SerializedPGliteDialect extends PGliteDialect {
  override createDriver(): Driver {
    return new SerializedDriver(super.createDriver())
  }
}

class SerializedDriver implements Driver {
  #queue: Promise<void> = Promise.resolve()
  #release: (() => void) | undefined

  constructor(private readonly inner: Driver) {}

  init(): Promise<void> {
    return this.inner.init()
  }
  async acquireConnection(): Promise<DatabaseConnection> {
    if (transactionScope.getStore()?.inside) {
      throw new Error('query on the database from inside a transaction: pass the transaction (trx) down instead')
    }
    const previous = this.#queue
    let release!: () => void
    this.#queue = new Promise<void>((resolve) => (release = resolve))
    await previous
    this.#release = release
    return this.inner.acquireConnection()
  }
  async releaseConnection(connection: DatabaseConnection): Promise<void> {
    await this.inner.releaseConnection(connection)
    const release = this.#release
    this.#release = undefined
    release?.()
  }
  beginTransaction(connection: DatabaseConnection, settings: TransactionSettings): Promise<void> {
    return this.inner.beginTransaction(connection, settings)
  }
  commitTransaction(connection: DatabaseConnection): Promise<void> {
    return this.inner.commitTransaction(connection)
  }
  rollbackTransaction(connection: DatabaseConnection): Promise<void> {
    return this.inner.rollbackTransaction(connection)
  }
  destroy(): Promise<void> {
    return this.inner.destroy()
  }
}
