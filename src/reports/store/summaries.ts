import { sql } from 'kysely'
import type { Executor } from '../../platform/db/transaction.js'
import './tables.js'

/** The admins of a subscription who opted in to the daily summary. */
export async function listOptins(ex: Executor, subId: string): Promise<string[]> {
  const rows = await ex.selectFrom('report_summary_optins').select('user_id').where('sub_id', '=', subId).execute()
  return rows.map((r) => r.user_id)
}

/** Every opt-in, subscription by subscription (the job's list of whom to write to). */
export async function allOptins(ex: Executor): Promise<Array<{ subId: string; userId: string }>> {
  const rows = await ex
    .selectFrom('report_summary_optins')
    .select(['sub_id', 'user_id'])
    .orderBy('sub_id')
    .orderBy('user_id')
    .execute()
  return rows.map((r) => ({ subId: r.sub_id, userId: r.user_id }))
}

export async function setOptin(ex: Executor, subId: string, userId: string, on: boolean, at: Date): Promise<void> {
  if (on)
    await ex
      .insertInto('report_summary_optins')
      .values({ sub_id: subId, user_id: userId, created_at: at })
      .onConflict((c) => c.doNothing())
      .execute()
  else await ex.deleteFrom('report_summary_optins').where('sub_id', '=', subId).where('user_id', '=', userId).execute()
}

/**
 * Claims one admin's summary of one day, committed before the send: true when this caller is to
 * send it. A summary sent, unconfirmed or given up is never claimed again; one claimed by a worker
 * that died mid-send (its claim lapsed) or refused by the server (its claim released) is.
 */
export async function claimSend(
  ex: Executor,
  k: { subId: string; userId: string; day: string },
  now: Date,
  until: Date,
  maxAttempts: number,
): Promise<boolean> {
  const { rows } = await sql<{ ok: number }>`
    insert into report_summary_sends (sub_id, user_id, day, status, attempts, claimed_until)
    values (${k.subId}, ${k.userId}, ${k.day}::date, 'sending', 1, ${until})
    on conflict (sub_id, user_id, day) do update set attempts = report_summary_sends.attempts + 1,
      claimed_until = excluded.claimed_until
     where report_summary_sends.status = 'sending' and report_summary_sends.claimed_until <= ${now}
       and report_summary_sends.attempts < ${maxAttempts}
    returning 1 as ok`.execute(ex)
  return rows.length === 1
}

/** Records how the send ended: sent, unconfirmed (never sent again), or refused (claimable again now, up to maxAttempts). */
export async function recordSend(
  ex: Executor,
  k: { subId: string; userId: string; day: string },
  outcome: { status: 'sent' | 'unconfirmed' } | { status: 'retry' | 'failed'; error: string },
  now: Date,
  maxAttempts = 1,
): Promise<void> {
  const where = sql`sub_id = ${k.subId} and user_id = ${k.userId} and day = ${k.day}::date`
  if (outcome.status === 'retry' || outcome.status === 'failed')
    await sql`update report_summary_sends set claimed_until = ${now}, last_error = ${outcome.error},
      status = case when ${outcome.status === 'failed'} or attempts >= ${maxAttempts} then 'failed' else 'sending' end
      where ${where}`.execute(ex)
  else
    await sql`update report_summary_sends set status = ${outcome.status}, sent_at = ${now}, last_error = null
      where ${where}`.execute(ex)
}

/** The days' sends already settled for these admins (the job skips them without a claim). */
export async function settledSends(ex: Executor, day: string): Promise<Set<string>> {
  const { rows } = await sql<{ sub_id: string; user_id: string }>`
    select sub_id, user_id from report_summary_sends where day = ${day}::date and status <> 'sending'`.execute(ex)
  return new Set(rows.map((r) => `${r.sub_id}\u0000${r.user_id}`))
}
