import type { CompiledQuery, DatabaseConnection, Driver, QueryCompiler, QueryResult, TransactionSettings } from 'kysely'
import { retryOnConflict } from './retry.js'

/** A lone statement aborted by a deadlock or a serialization failure is run again this many times in all. */
const ATTEMPTS = 5

/**
 * The PostgreSQL driver, with statements run outside a transaction (autocommit) retried when
 * PostgreSQL aborted them as a deadlock's victim or for a serialization failure: such a statement
 * did nothing (its implicit transaction rolled back), so running it again is safe, and the race
 * with another process never reaches a client as a 500. Inside a transaction a statement is never
 * retried alone (the transaction is aborted): inTransaction runs the whole transaction again.
 */
export class ConflictRetryDriver implements Driver {
  constructor(private readonly inner: Driver) {}

  init(): Promise<void> {
    return this.inner.init()
  }
  async acquireConnection(): Promise<DatabaseConnection> {
    return new RetryingConnection(await this.inner.acquireConnection())
  }
  async beginTransaction(connection: DatabaseConnection, settings: TransactionSettings): Promise<void> {
    const c = connection as RetryingConnection
    await this.inner.beginTransaction(c.inner, settings)
    c.inTransaction = true
  }
  async commitTransaction(connection: DatabaseConnection): Promise<void> {
    const c = connection as RetryingConnection
    try {
      await this.inner.commitTransaction(c.inner)
    } finally {
      c.inTransaction = false
    }
  }
  async rollbackTransaction(connection: DatabaseConnection): Promise<void> {
    const c = connection as RetryingConnection
    try {
      await this.inner.rollbackTransaction(c.inner)
    } finally {
      c.inTransaction = false
    }
  }
  savepoint(connection: DatabaseConnection, name: string, compile: QueryCompiler['compileQuery']): Promise<void> {
    return this.inner.savepoint!((connection as RetryingConnection).inner, name, compile)
  }
  rollbackToSavepoint(
    connection: DatabaseConnection,
    name: string,
    compile: QueryCompiler['compileQuery'],
  ): Promise<void> {
    return this.inner.rollbackToSavepoint!((connection as RetryingConnection).inner, name, compile)
  }
  releaseSavepoint(
    connection: DatabaseConnection,
    name: string,
    compile: QueryCompiler['compileQuery'],
  ): Promise<void> {
    return this.inner.releaseSavepoint!((connection as RetryingConnection).inner, name, compile)
  }
  releaseConnection(connection: DatabaseConnection): Promise<void> {
    const c = connection as RetryingConnection
    c.inTransaction = false
    return this.inner.releaseConnection(c.inner)
  }
  destroy(): Promise<void> {
    return this.inner.destroy()
  }
}

class RetryingConnection implements DatabaseConnection {
  inTransaction = false

  constructor(readonly inner: DatabaseConnection) {}

  executeQuery<R>(query: CompiledQuery): Promise<QueryResult<R>> {
    if (this.inTransaction) return this.inner.executeQuery<R>(query)
    return retryOnConflict(() => this.inner.executeQuery<R>(query), ATTEMPTS)
  }
  streamQuery<R>(query: CompiledQuery, chunkSize?: number): AsyncIterableIterator<QueryResult<R>> {
    return this.inner.streamQuery<R>(query, chunkSize)
  }
}
