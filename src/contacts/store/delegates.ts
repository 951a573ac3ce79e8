import type { Executor } from '../../platform/db/transaction.js'
import './directory-tables.js'

/** The delegates of each of `contactIds`, in id order. */
export async function delegatesOf(db: Executor, subId: string, contactIds: string[]): Promise<Map<string, string[]>> {
  const out = new Map<string, string[]>(contactIds.map((id) => [id, []]))
  if (contactIds.length === 0) return out
  const rows = await db
    .selectFrom('contact_delegates')
    .select(['contact_id', 'delegate_id'])
    .where('sub_id', '=', subId)
    .where('contact_id', 'in', contactIds)
    .orderBy('delegate_id')
    .execute()
  for (const r of rows) out.get(r.contact_id)?.push(r.delegate_id)
  return out
}

export async function addDelegates(db: Executor, subId: string, contactId: string, ids: string[]): Promise<void> {
  if (ids.length === 0) return
  await db
    .insertInto('contact_delegates')
    .values(ids.map((delegate_id) => ({ sub_id: subId, contact_id: contactId, delegate_id })))
    .onConflict((oc) => oc.doNothing())
    .execute()
}

export async function removeDelegates(
  db: Executor,
  subId: string,
  contactId: string,
  ids: string[] | 'all',
): Promise<void> {
  let q = db.deleteFrom('contact_delegates').where('sub_id', '=', subId).where('contact_id', '=', contactId)
  if (ids !== 'all') {
    if (ids.length === 0) return
    q = q.where('delegate_id', 'in', ids)
  }
  await q.execute()
}

/** Which of `ids` are live contacts of the subscription. */
export async function liveContactIds(db: Executor, subId: string, ids: string[]): Promise<Set<string>> {
  if (ids.length === 0) return new Set()
  const rows = await db
    .selectFrom('contacts')
    .select('contact_id')
    .where('sub_id', '=', subId)
    .where('contact_id', 'in', ids)
    .where('deleted_at', 'is', null)
    .execute()
  return new Set(rows.map((r) => r.contact_id))
}
