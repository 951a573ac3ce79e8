import type { Selectable } from 'kysely'
import type { Executor } from '../../platform/db/transaction.js'
import type { LdapRunJson, LdapSettingsTable } from './tables.js'

export type LdapSettingsRow = Selectable<LdapSettingsTable>

export async function findSettings(db: Executor, subId: string): Promise<LdapSettingsRow | undefined> {
  return db
    .selectFrom('ldap_settings')
    .select([
      'sub_id',
      'enabled',
      'url',
      'bind_dn',
      'bind_password_sealed',
      'base_dn',
      'filter',
      'mapping',
      'interval_minutes',
      'next_run_at',
      'last_run',
      'updated_at',
    ])
    .where('sub_id', '=', subId)
    .executeTakeFirst()
}

export async function upsertSettings(
  db: Executor,
  row: Omit<LdapSettingsRow, 'mapping' | 'last_run'> & { mapping: string },
): Promise<void> {
  const { sub_id: _sub, ...set } = row
  await db
    .insertInto('ldap_settings')
    .values(row)
    .onConflict((oc) => oc.column('sub_id').doUpdateSet(set))
    .execute()
}

export async function deleteSettings(db: Executor, subId: string): Promise<boolean> {
  const r = await db.deleteFrom('ldap_settings').where('sub_id', '=', subId).executeTakeFirst()
  return Number(r.numDeletedRows) > 0
}

/** The subscriptions whose sync is due. */
export async function dueSyncs(db: Executor, now: Date, limit: number): Promise<string[]> {
  const rows = await db
    .selectFrom('ldap_settings')
    .select('sub_id')
    .where('enabled', '=', true)
    .where('next_run_at', '<=', now)
    .orderBy('next_run_at')
    .limit(limit)
    .execute()
  return rows.map((r) => r.sub_id)
}

/** Claims a due run: moves its next time on, so another process does not run it too. False: someone else did. */
export async function claimRun(db: Executor, subId: string, now: Date, next: Date): Promise<boolean> {
  const r = await db
    .updateTable('ldap_settings')
    .set({ next_run_at: next })
    .where('sub_id', '=', subId)
    .where('next_run_at', '<=', now)
    .executeTakeFirst()
  return Number(r.numUpdatedRows) > 0
}

export async function recordRun(db: Executor, subId: string, run: LdapRunJson): Promise<void> {
  await db
    .updateTable('ldap_settings')
    .set({ last_run: JSON.stringify(run) })
    .where('sub_id', '=', subId)
    .execute()
}
