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

/** The same events again, those still unmarked: a part of a read, handled on its own after the whole failed. */
async function stillUnconsumed(trx: Trx, consumer: Consumer, eventIds: readonly string[]): Promise<Row[]> {
  const { rows } = await sql<Row>`
    select e.event_id, e.tx_id::text as tx, e.sub_id, e.package_id, e.variant, e.event_name, e.occurred_at, e.data
    from package_events e
    where e.event_id = any(${[...eventIds]}::text[]) and e.${sql.ref(CONSUMERS[consumer].mark)} is null
    order by e.tx_id, e.event_id`.execute(trx)
  return rows
}

const parsed = (rows: Row[]): ConsumedEvent[] =>
  rows.map((r) => ({
    ...r,
    data: typeof r.data === 'string' ? (JSON.parse(r.data) as Record<string, unknown>) : r.data,
  }))

async function markConsumed(trx: Trx, consumer: Consumer, rows: readonly Row[], now: Date): Promise<void> {
  await sql`update package_events set ${sql.ref(CONSUMERS[consumer].mark)} = ${now}::timestamptz
            where event_id = any(${rows.map((r) => r.event_id)}::text[])`.execute(trx)
}

/** The write an event belongs to; each event carried over by migration 0040 (all tx 0) is its own. */
const writeOf = (r: Row) => (r.tx === '0' ? `0:${r.event_id}` : r.tx)

/** What one step did: events read (0: none waiting), and the writes left unconsumed because handling them failed. */
export interface ConsumeStep {
  read: number
  failed: number
}

/**
 * One step of a consumer: in one transaction, reads up to `limit` of its unmarked events, hands
 * them to `handle` (which writes with `trx`) and marks them. Undefined while another process
 * consumes under this name (it skips, never waits).
 *
 * A read whose handling fails is not retried whole: its parts are handled each in a transaction
 * of its own, first by subscription, then in halves (never splitting a write's events), down to
 * the one write that fails. That write stays unconsumed (and is reported to `onFailed`) while
 * every other subscription's events, and the same subscription's other writes, are consumed: one
 * tenant's bad row never stops the others' notifications (the webhook fan-out splits the same way).
 */
export async function consumeEvents(
  db: Db,
  consumer: Consumer,
  opts: { limit: number; now: Date; onFailed?: (err: unknown, events: ConsumedEvent[]) => void },
  handle: (trx: Trx, events: ConsumedEvent[]) => Promise<void>,
): Promise<ConsumeStep | undefined> {
  let read: Row[] | undefined
  try {
    const whole = await inTransaction(db, async (trx) => {
      if (!(await tryConsumerLock(trx, consumer))) return undefined
      const rows = await unconsumed(trx, consumer, opts.limit)
      read = rows
      if (rows.length === 0) return { read: 0, failed: 0 }
      await handle(trx, parsed(rows))
      await markConsumed(trx, consumer, rows, opts.now)
      return { read: rows.length, failed: 0 }
    })
    return whole
  } catch (err) {
    // The read itself failed (no rows yet): nothing to isolate, the caller logs it.
    if (!read || read.length === 0) throw err
    const rows: Row[] = read
    const failed = await isolate(rows, err)
    return { read: rows.length, failed }
  }

  /** Handles `part` on its own; on failure splits it. Returns how many writes were left unconsumed. */
  async function isolate(part: Row[], failure: unknown): Promise<number> {
    const subs = [...new Set(part.map((r) => r.sub_id))]
    const writes = [...new Set(part.map(writeOf))]
    const pieces =
      subs.length > 1
        ? subs.map((sub) => part.filter((r) => r.sub_id === sub))
        : writes.length > 1
          ? [writes.slice(0, writes.length >> 1), writes.slice(writes.length >> 1)].map((half) => {
              const keys = new Set(half)
              return part.filter((r) => keys.has(writeOf(r)))
            })
          : []
    if (pieces.length === 0) {
      opts.onFailed?.(failure, parsed(part))
      return 1
    }
    const failures: Array<{ piece: Row[]; err: unknown }> = []
    for (const piece of pieces) {
      try {
        await inTransaction(db, async (trx) => {
          // Another process may have taken the cursor between these transactions: it skips, as a
          // step does, and the events it consumed meanwhile are no longer unmarked here.
          if (!(await tryConsumerLock(trx, consumer))) return
          const rows = await stillUnconsumed(
            trx,
            consumer,
            piece.map((r) => r.event_id),
          )
          if (rows.length === 0) return
          await handle(trx, parsed(rows))
          await markConsumed(trx, consumer, rows, opts.now)
        })
      } catch (err) {
        failures.push({ piece, err })
      }
    }
    // Every piece failing says the cause is not in one of them (the database is down, a bug in
    // handle): splitting further would only repeat it. The step is reported failed as a whole.
    if (failures.length === pieces.length) {
      opts.onFailed?.(failure, parsed(part))
      return writes.length
    }
    let failed = 0
    for (const { piece, err } of failures) failed += await isolate(piece, err)
    return failed
  }
}
