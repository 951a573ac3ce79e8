import type { Insertable } from 'kysely'
import type { Executor } from '../../platform/db/transaction.js'
import type { SsoSettingsRow, SsoSettingsTable } from './sso-tables.js'

const SETTINGS_COLUMNS = [
  'sub_id',
  'enabled',
  'issuer',
  'client_id',
  'client_secret_sealed',
  'provision_users',
  'default_role',
  'require_verified_email',
  'password_sign_in',
  'created_at',
  'updated_at',
] as const

export type SsoSettingsRecord = SsoSettingsRow & { domains: string[] }

async function domainsOf(db: Executor, subId: string): Promise<string[]> {
  const rows = await db
    .selectFrom('sso_email_domains')
    .select('domain')
    .where('sub_id', '=', subId)
    .orderBy('domain')
    .execute()
  return rows.map((r) => r.domain)
}

/** The subscription's settings and email domains; undefined when it never saved any. */
export async function findSettings(db: Executor, subId: string): Promise<SsoSettingsRecord | undefined> {
  const row = await db
    .selectFrom('sso_settings')
    .select(SETTINGS_COLUMNS)
    .where('sub_id', '=', subId)
    .executeTakeFirst()
  return row ? { ...row, domains: await domainsOf(db, subId) } : undefined
}

/** The settings of the subscription that claims this email domain (the sign-in page's lookup). */
export async function findSettingsByDomain(db: Executor, domain: string): Promise<SsoSettingsRecord | undefined> {
  const owner = await db
    .selectFrom('sso_email_domains')
    .select('sub_id')
    .where('domain', '=', domain)
    .executeTakeFirst()
  return owner ? findSettings(db, owner.sub_id) : undefined
}

/** Which of `domains` another subscription claims. */
export async function domainsClaimedElsewhere(db: Executor, subId: string, domains: string[]): Promise<string[]> {
  if (domains.length === 0) return []
  const rows = await db
    .selectFrom('sso_email_domains')
    .select('domain')
    .where('domain', 'in', domains)
    .where('sub_id', '<>', subId)
    .orderBy('domain')
    .execute()
  return rows.map((r) => r.domain)
}

/** Writes the settings and replaces the domains (call inside a transaction). */
export async function saveSettings(db: Executor, row: Insertable<SsoSettingsTable>, domains: string[]): Promise<void> {
  const { sub_id: _, created_at: __, ...change } = row
  await db
    .insertInto('sso_settings')
    .values(row)
    .onConflict((oc) => oc.column('sub_id').doUpdateSet(change))
    .execute()
  await db.deleteFrom('sso_email_domains').where('sub_id', '=', row.sub_id).execute()
  if (domains.length > 0)
    await db
      .insertInto('sso_email_domains')
      .values(domains.map((domain) => ({ domain, sub_id: row.sub_id })))
      .execute()
}

/** Whether the subscription has turned password sign-in off (the password door asks on each sign-in). */
export async function passwordSignInOff(db: Executor, subId: string): Promise<boolean> {
  const row = await db
    .selectFrom('sso_settings')
    .select('password_sign_in')
    .where('sub_id', '=', subId)
    .executeTakeFirst()
  return row !== undefined && !row.password_sign_in
}
