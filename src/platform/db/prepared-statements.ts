import { createHash } from 'node:crypto'
import type pg from 'pg'

/**
 * Turns every parameterised query of a pg client into a named prepared statement. The service
 * issues a small, fixed set of SQL texts; without names PostgreSQL parses and plans each of them
 * on every call, and for the record read (a dozen scalar subqueries) that planning cost several
 * times the execution. With names, each connection parses a text once and PostgreSQL may settle on
 * a generic plan after five executions.
 *
 * The name is a hash of the text, so one name never stands for two texts (pg refuses that). The
 * number of names is capped: texts that vary without end (an IN list of N items) would otherwise
 * grow every backend's statement cache; past the cap a text runs unnamed, as before.
 */
export function preparedStatementsFor(client: pg.PoolClient, names: StatementNames): void {
  const query = client.query.bind(client) as (...args: unknown[]) => unknown
  client.query = ((text: unknown, values?: unknown, callback?: unknown) => {
    if (typeof text === 'string' && Array.isArray(values) && callback === undefined) {
      const name = names.nameOf(text)
      if (name !== undefined) return query({ name, text, values })
    }
    return query(text, values, callback)
  }) as typeof client.query
}

export class StatementNames {
  // Keyed by length, then compared whole: a Map keyed by the text would hash every (new, long)
  // query string on every call, which cost more than the lookup saves.
  readonly #byLength = new Map<number, Array<{ text: string; name: string }>>()
  #count = 0

  constructor(
    private readonly max = 1000,
    private readonly maxLength = 16_384,
  ) {}

  nameOf(text: string): string | undefined {
    const same = this.#byLength.get(text.length)
    if (same !== undefined) for (const e of same) if (e.text === text) return e.name
    if (this.#count >= this.max || text.length > this.maxLength || !isPlannable(text)) return undefined
    const name = `mr_${createHash('sha1').update(text).digest('base64url').slice(0, 22)}`
    if (same === undefined) this.#byLength.set(text.length, [{ text, name }])
    else same.push({ text, name })
    this.#count++
    return name
  }
}

/** Transaction control and DDL gain nothing from a name (and DDL texts are one-offs). */
function isPlannable(text: string): boolean {
  return /^\s*(select|insert|update|delete|with)\b/i.test(text)
}
