import type { Executor } from '../../platform/db/transaction.js'
import type { DirectoryRow } from './directory.js'

/** Gone contacts (inactive, or moved out by `day`) whose departure is not noted yet, every subscription. */
export async function goneUnnoted(
  db: Executor,
  day: string,
  limit: number,
): Promise<Array<Pick<DirectoryRow, 'sub_id' | 'contact_id' | 'name' | 'status' | 'move_out'>>> {
  return db
    .selectFrom('contacts')
    .select(['sub_id', 'contact_id', 'name', 'status', 'move_out'])
    .where('deleted_at', 'is', null)
    .where('departure_noted_at', 'is', null)
    .where((eb) => eb.or([eb('status', '=', 'inactive'), eb('move_out', '<=', day)]))
    .orderBy('updated_at')
    .limit(limit)
    .execute()
}

/** Gone contacts whose departure was noted, newest first: those the dashboard may list. */
export async function goneNoted(
  db: Executor,
  subId: string,
  day: string,
  limit: number,
): Promise<Array<Pick<DirectoryRow, 'contact_id' | 'name' | 'status' | 'move_out' | 'departure_noted_at'>>> {
  return db
    .selectFrom('contacts')
    .select(['contact_id', 'name', 'status', 'move_out', 'departure_noted_at'])
    .where('sub_id', '=', subId)
    .where('deleted_at', 'is', null)
    .where('departure_noted_at', 'is not', null)
    .where((eb) => eb.or([eb('status', '=', 'inactive'), eb('move_out', '<=', day)]))
    .orderBy('departure_noted_at', 'desc')
    .limit(limit)
    .execute()
}

export async function noteDeparture(db: Executor, subId: string, contactId: string, at: Date): Promise<boolean> {
  const r = await db
    .updateTable('contacts')
    .set({ departure_noted_at: at })
    .where('sub_id', '=', subId)
    .where('contact_id', '=', contactId)
    .where('departure_noted_at', 'is', null)
    .executeTakeFirst()
  return Number(r.numUpdatedRows) > 0
}
