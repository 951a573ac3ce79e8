import type { Executor } from '../../platform/db/transaction.js'

/** What the notifications domain needs of a contact to address it. */
export interface NotifiedContact {
  contact_id: string
  name: string
  email: string | null
  notify: boolean
  contact_type: 'SENDER' | 'RECEIVER' | 'ALL'
  deleted: boolean
}

/**
 * The contacts notifications go to, read inside the caller's writing transaction (a service call
 * cannot run there): deleted ones too, marked, so the caller can say why nothing was sent.
 */
export async function notifiedContacts(
  db: Executor,
  subId: string,
  contactIds: string[],
): Promise<Map<string, NotifiedContact>> {
  if (contactIds.length === 0) return new Map()
  const rows = await db
    .selectFrom('contacts')
    .select(['contact_id', 'name', 'email', 'notify', 'contact_type', 'deleted_at'])
    .where('sub_id', '=', subId)
    .where('contact_id', 'in', contactIds)
    .execute()
  return new Map(rows.map((r) => [r.contact_id, { ...r, deleted: r.deleted_at !== null }]))
}
