import { sql } from 'kysely'
import type { Db } from '../platform/db/database.js'
import { inTransaction, type Trx } from '../platform/db/transaction.js'
import type { WebhookVariant } from './variants.js'

// Consumer cursors: what each consumer of the outbox has consumed is marked on the events it read,
// in the transaction that writes what they called for (the webhook fan-out's dispatched_at, the
// notifications' notified_at). A crash before the commit leaves both as they were: each event is
// consumed once, and an event committed late is simply found unmarked by a later read (a position
// in an order would skip it).

/**
 * The consumers that read the outbox through consumeEvents, with their mark and the events they
 * read: the partial index of migration 0040 holds exactly those events while unmarked.
 */
export const CONSUMERS = {
  notifications: {
    mark: 'notified_at',
    variant: 'tracking',
    eventNames: ['Acceptance', 'Delivered', 'PickedUp'],
  },
} as const satisfies Record<string, { mark: string; variant: WebhookVariant; eventNames: readonly string[] }>

export type Consumer = keyof typeof CONSUMERS

/** An event as a consumer reads it. */
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

interface Row extends Omit<ConsumedEvent, 'data'> {
  data: Record<string, unknown> | string
}

/** One consumer of a name at a time across every process, for the rest of the transaction; false: another one is. */
async function tryConsumerLock(trx: Trx, consumer: Consumer): Promise<boolean> {
  const { rows } = await sql<{ ok: boolean }>`
    select pg_try_advisory_xact_lock(hashtext(${`mailroom:events:${consumer}`})) as ok`.execute(trx)
  return rows[0]?.ok === true
}

/**
 * The consumer's unmarked events, oldest write first: at most `limit`, then the rest of the last
 * one's write, so a write's events are never split between two reads (a write is bounded by the
 * API's batch limits).
 */
async function unconsumed(trx: Trx, consumer: Consumer, limit: number): Promise<Row[]> {
  const c = CONSUMERS[consumer]
  const unmarked = sql`e.${sql.ref(c.mark)} is null and e.variant = ${c.variant} and e.event_name in (${sql.join(c.eventNames.map((n) => sql.lit(n)))})`
  const columns = sql`e.event_id, e.tx_id::text as tx, e.sub_id, e.package_id, e.variant, e.event_name, e.occurred_at, e.data`
  const { rows } = await sql<Row>`
    select ${columns} from package_events e where ${unmarked}
    order by e.tx_id, e.event_id limit ${limit}`.execute(trx)
  const last = rows.at(-1)
  // Events carried over by migration 0040 share tx 0 without being one write: never read them whole.
  if (rows.length < limit || !last || last.tx === '0') return rows
  const { rows: rest } = await sql<Row>`
    select ${columns} from package_events e where ${unmarked} and e.tx_id = ${last.tx}::xid8 and e.event_id > ${last.event_id}
    order by e.event_id`.execute(trx)
  return rows.concat(rest)
}

/**
 * One step of a consumer: in one transaction, reads up to `limit` of its unmarked events, hands
 * them to `handle` (which writes with `trx`) and marks them. Returns how many it read (0: none
 * waiting), or undefined while another process consumes under this name (it skips, never waits).
 */
export async function consumeEvents(
  db: Db,
  consumer: Consumer,
  opts: { limit: number; now: Date },
  handle: (trx: Trx, events: ConsumedEvent[]) => Promise<void>,
): Promise<number | undefined> {
  return inTransaction(db, async (trx) => {
    if (!(await tryConsumerLock(trx, consumer))) return undefined
    const rows = await unconsumed(trx, consumer, opts.limit)
    if (rows.length === 0) return 0
    await handle(
      trx,
      rows.map((r) => ({
        ...r,
        data: typeof r.data === 'string' ? (JSON.parse(r.data) as Record<string, unknown>) : r.data,
      })),
    )
    await sql`update package_events set ${sql.ref(CONSUMERS[consumer].mark)} = ${opts.now}::timestamptz
              where event_id = any(${rows.map((r) => r.event_id)}::text[])`.execute(trx)
    return rows.length
  })
}
