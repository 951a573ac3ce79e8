import { PGlite } from '@electric-sql/pglite'
import { btree_gin } from '@electric-sql/pglite/contrib/btree_gin'
import { pg_trgm } from '@electric-sql/pglite/contrib/pg_trgm'
import { PGliteDialect } from 'kysely-pglite-dialect'
import { Kysely, PostgresDialect, type DatabaseConnection, type Driver, type TransactionSettings } from 'kysely'
import pg from 'pg'
import { mkdirSync } from 'node:fs'
import path from 'node:path'
import type { Database } from './tables.js'
import { guardTransactions, transactionScope } from './transaction.js'
import { lockDataDir } from './data-dir-lock.js'
import { createEmbeddedDir, openEmbeddedDir } from './embedded-dir.js'
import { preparedStatementsFor, StatementNames } from './prepared-statements.js'
import { ConflictRetryDriver } from './conflict-retry-driver.js'

export type Db = Kysely<Database>
export type DbEngine = 'postgres' | 'pglite'

export interface DatabaseHandle {
  db: Db
  engine: DbEngine
  close(): Promise<void>
  /**
   * The embedded database only: a consistent snapshot of its data directory (PGlite's dumpDataDir,
   * gzipped tar), taken between transactions (see dumpBetweenTransactions).
   */
  dumpDataDir?: () => Promise<Blob>
}

export type DatabaseTarget =
  /** statementTimeoutMs: the longest any statement may run, and wait for a pool connection (0 or absent: unbounded). */
  | { kind: 'postgres'; url: string; poolSize: number; statementTimeoutMs?: number }
  /**
   * dir: a directory, or 'memory' for a database that lives and dies with the process; an in-memory
   * one may start `from` a data directory dumped by PGlite's dumpDataDir (the tests' migrated template;
   * a directory is made from a dump by restoreEmbedded).
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
    const db = new Kysely<Database>({ dialect: new ConflictRetryDialect({ pool }) })
    return { db, engine: 'postgres', close: () => db.destroy() }
  }
  let unlock = () => {}
  if (target.dir !== 'memory') {
    // The directory itself is made, whole, by openEmbeddedDir; the lock file lives beside it.
    mkdirSync(path.dirname(path.resolve(target.dir)), { recursive: true })
    unlock = lockDataDir(target.dir)
  }
  let pglite: PGlite
  try {
    pglite =
      target.dir === 'memory'
        ? await createPGlite(undefined, target.from)
        : await openEmbeddedDir(path.resolve(target.dir), createPGlite)
  } catch (e) {
    unlock()
    throw e
  }
  const db = new Kysely<Database>({ dialect: new SerializedPGliteDialect(pglite) })
  if (options.guardTransactions) guardTransactions(db)
  return {
    db,
    engine: 'pglite',
    dumpDataDir: () => dumpBetweenTransactions(db, pglite),
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
 * A handle on an in-memory PGlite its caller keeps (made by createMemoryPGlite): closing the handle
 * waits for the queries it started and refuses new ones, but leaves the database running. The tests
 * reuse one database per worker from file to file this way (test/support/pglite-pool.ts): booting a
 * copy of the migrated template took 1.2–1.7 s of CPU per file, emptying the used one a tenth of that.
 */
export function handleOnPGlite(pglite: PGlite, options: OpenOptions = {}): DatabaseHandle {
  const db = new Kysely<Database>({ dialect: new SerializedPGliteDialect(pglite, { keepOpen: true }) })
  if (options.guardTransactions) guardTransactions(db)
  return {
    db,
    engine: 'pglite',
    dumpDataDir: () => dumpBetweenTransactions(db, pglite),
    close: () => db.destroy(),
  }
}

/** A new in-memory PGlite with the extensions and type parsers every handle expects, optionally started from a dump. */
export const createMemoryPGlite = (from?: Blob): Promise<PGlite> => createPGlite(undefined, from)

const createPGlite = (dataDir?: string, from?: Blob) =>
  PGlite.create({
    ...(dataDir ? { dataDir } : {}),
    ...(from ? { loadDataDir: from } : {}),
    extensions: { pg_trgm, btree_gin },
    parsers: { 20: (v: string) => Number(v), 1082: (v: string) => v },
  })

/**
 * Makes the embedded database in `dir`, which must not hold one yet, from `dump` (a data directory
 * dumped by dumpDataDir: a backup), under the directory's lock. `prepare` runs on it before it is
 * moved into place: a restore migrates and marks itself there, so that no one ever finds, or
 * starts on, a restored directory that is not marked.
 */
export async function restoreEmbedded(dir: string, dump: Blob, prepare: (db: Db) => Promise<void>): Promise<void> {
  mkdirSync(path.dirname(path.resolve(dir)), { recursive: true })
  const unlock = lockDataDir(dir)
  try {
    await createEmbeddedDir(path.resolve(dir), createPGlite, {
      from: dump,
      prepare: (fresh) => prepare(new Kysely<Database>({ dialect: new SerializedPGliteDialect(fresh) })),
    })
  } finally {
    unlock()
  }
}

/**
 * PGlite's dumpDataDir reads the files under the running database: it must not run while a
 * statement writes them, nor inside a transaction. Holding the one connection (the driver's queue)
 * waits for the transaction in progress to end and keeps the next one waiting until the dump is
 * read; a checkpoint first writes every committed page to the files, so the copy opens without
 * replaying the log. Writes wait for the dump (about a second for tens of megabytes).
 */
async function dumpBetweenTransactions(db: Db, pglite: PGlite): Promise<Blob> {
  return db.connection().execute(async () => {
    await pglite.exec('CHECKPOINT')
    return pglite.dumpDataDir('gzip')
  })
}

/** PostgreSQL, with lone statements that lost a deadlock or a serialization race run again (ConflictRetryDriver). */
class ConflictRetryDialect extends PostgresDialect {
  override createDriver(): Driver {
    return new ConflictRetryDriver(super.createDriver())
  }
}

/**
 * PGlite is one connection: each transaction (and each lone query) must have it to itself. The
 * dialect's driver queues acquirers; this wrapper keeps that order explicit and adds the test guard
 * that refuses a query on the plain database from inside a transaction (it would wait forever).
 * (kysely-pglite-dialect rather than Kysely 0.29's built-in dialect: 0.29 requires Node 22.)
 */
class SerializedPGliteDialect extends PGliteDialect {
  constructor(
    pglite: PGlite,
    private readonly opts: { keepOpen?: boolean } = {},
  ) {
    super(pglite)
  }
  override createDriver(): Driver {
    return new SerializedDriver(super.createDriver(), this.opts.keepOpen === true)
  }
}

class SerializedDriver implements Driver {
  #queue: Promise<void> = Promise.resolve()
  #release: (() => void) | undefined
  #closed = false

  /** keepOpen: destroy ends this driver's use of the database (after its last query) and leaves PGlite open. */
  constructor(
    private readonly inner: Driver,
    private readonly keepOpen = false,
  ) {}

  init(): Promise<void> {
    return this.inner.init()
  }
  async acquireConnection(): Promise<DatabaseConnection> {
    if (this.#closed) throw new Error('the database handle is closed')
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
  async destroy(): Promise<void> {
    this.#closed = true
    if (!this.keepOpen) return this.inner.destroy()
    // A transaction its owner abandoned would hold the connection for ever: wait a while, not for ever.
    let timer: NodeJS.Timeout | undefined
    await Promise.race([this.#queue, new Promise<void>((resolve) => (timer = setTimeout(resolve, 5_000)))])
    clearTimeout(timer)
  }
}
