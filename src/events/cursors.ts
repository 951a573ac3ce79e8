import { sql } from 'kysely'
import type { Db } from '../platform/db/database.js'
import { inTransaction, type Trx } from '../platform/db/transaction.js'
import type { WebhookVariant } from './variants.js'

// Consumer cursors (migration 0040): a consumer reads the outbox after its position, in
// (tx_id, event_id) order, and moves its position in the same transaction as what it wrote of the
// events: a crash before the commit leaves both as they were, so each event is consumed once.

/** An event as a consumer reads it; `data` only for the events it asked for. */
export interface ConsumedEvent {
  event_id: string
  /** The writing transaction: the events of one write share it. */
  tx: string
  sub_id: string
  package_id: string
  variant: WebhookVariant
  event_name: string
  occurred_at: Date
  data: Record<string, unknown>
}

/** The events a consumer wants handed to it (the others are passed over, its cursor moves past them). */
export interface Wanted {
  variant: WebhookVariant
  eventNames: readonly string[]
}

interface Position {
  tx: string
  event_id: string
}

interface Row extends Omit<ConsumedEvent, 'data'> {
  data: Record<string, unknown> | string | null
}

/**
 * The consumer's position, locked for this transaction; undefined while another process holds it
 * (one consumer of a name moves at a time, the others skip rather than wait). A consumer without a
 * row starts at the events still to be written.
 */
async function lockCursor(trx: Trx, consumer: string): Promise<Position | undefined> {
  const lock = () =>
    sql<Position>`select tx_id::text as tx, event_id from event_cursors where consumer = ${consumer} for update skip locked`.execute(
      trx,
    )
  const { rows } = await lock()
  if (rows[0]) return rows[0]
  const { rows: created } = await sql<Position>`
    insert into event_cursors (consumer, tx_id, event_id)
    values (${consumer}, pg_snapshot_xmin(pg_current_snapshot()), '')
    on conflict do nothing
    returning tx_id::text as tx, event_id`.execute(trx)
  return created[0]
}

const COLUMNS = sql`e.event_id, e.tx_id::text as tx, e.sub_id, e.package_id, e.variant, e.event_name, e.occurred_at`

/**
 * The next events after `from`, of transactions that have all finished (older than the snapshot's
 * xmin: none can commit behind the cursor later), at most `limit` and then the rest of the last
 * one's transaction: a write's events are never split between two reads.
 */
async function readAfter(trx: Trx, from: Position, limit: number, wanted: Wanted): Promise<Row[]> {
  const data = sql`case when e.variant = ${wanted.variant} and e.event_name = any(${[...wanted.eventNames]}::text[]) then e.data end as data`
  const { rows } = await sql<Row>`
    select ${COLUMNS}, ${data} from package_events e
    where (e.tx_id, e.event_id) > (${from.tx}::xid8, ${from.event_id})
      and e.tx_id < (select pg_snapshot_xmin(pg_current_snapshot()))
    order by e.tx_id, e.event_id
    limit ${limit}`.execute(trx)
  const last = rows.at(-1)
  if (rows.length < limit || !last) return rows
  const { rows: rest } = await sql<Row>`
    select ${COLUMNS}, ${data} from package_events e
    where e.tx_id = ${last.tx}::xid8 and e.event_id > ${last.event_id}
    order by e.event_id`.execute(trx)
  return rows.concat(rest)
}

/**
 * One step of a consumer: in one transaction, locks its cursor, reads up to `limit` events after
 * it, hands the wanted ones to `handle` (which writes with `trx`) and moves the cursor past all it
 * read. Returns how many events it read (0: none waiting), or undefined when another process is
 * consuming under this name. Events of a transaction still running wait for it to end, and for
 * every transaction of the server older than it (PostgreSQL's xmin horizon): a long transaction
 * delays consumers, it never makes them skip an event.
 */
export async function consumeEvents(
  db: Db,
  consumer: string,
  opts: { limit: number; wanted: Wanted },
  handle: (trx: Trx, events: ConsumedEvent[]) => Promise<void>,
): Promise<number | undefined> {
  return inTransaction(db, async (trx) => {
    const from = await lockCursor(trx, consumer)
    if (!from) return undefined
    const rows = await readAfter(trx, from, opts.limit, opts.wanted)
    const last = rows.at(-1)
    if (!last) return 0
    const events = rows.flatMap((r) =>
      r.data === null
        ? []
        : [{ ...r, data: typeof r.data === 'string' ? (JSON.parse(r.data) as Record<string, unknown>) : r.data }],
    )
    if (events.length > 0) await handle(trx, events)
    await sql`update event_cursors set tx_id = ${last.tx}::xid8, event_id = ${last.event_id}, updated_at = now()
              where consumer = ${consumer}`.execute(trx)
    return rows.length
  })
}
