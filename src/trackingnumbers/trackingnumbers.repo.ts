import { sql } from 'kysely'
import type { Executor } from '../db/transaction.js'

/** A database sequence: unique across every process and machine sharing the database. */
export async function nextTrackingSequence(db: Executor): Promise<bigint> {
  const { rows } = await sql<{ v: string }>`select nextval('tracking_number_seq')::text as v`.execute(db)
  return BigInt(rows[0]!.v)
}
