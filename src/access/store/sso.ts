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

export interface DomainClaim {
  domain: string
  granted: boolean
}

/** `domains`: every domain it claims; `claims`: each with whether the operator granted it. */
export type SsoSettingsRecord = SsoSettingsRow & { domains: string[]; claims: DomainClaim[] }

async function claimsOf(db: Executor, subId: string): Promise<DomainClaim[]> {
  const rows = await db
    .selectFrom('sso_email_domains')
    .select(['domain', 'granted_at'])
    .where('sub_id', '=', subId)
    .orderBy('domain')
    .execute()
  return rows.map((r) => ({ domain: r.domain, granted: r.granted_at !== null }))
}

/** The subscription's settings and email domains; undefined when it never saved any. */
export async function findSettings(db: Executor, subId: string): Promise<SsoSettingsRecord | undefined> {
  const row = await db
    .selectFrom('sso_settings')
    .select(SETTINGS_COLUMNS)
    .where('sub_id', '=', subId)
    .executeTakeFirst()
  if (!row) return undefined
  const claims = await claimsOf(db, subId)
  return { ...row, domains: claims.map((c) => c.domain), claims }
}

/** The settings of the subscription granted this email domain (the sign-in page's lookup); a pending claim finds none. */
export async function findSettingsByDomain(db: Executor, domain: string): Promise<SsoSettingsRecord | undefined> {
  const owner = await db
    .selectFrom('sso_email_domains')
    .select('sub_id')
    .where('domain', '=', domain)
    .where('granted_at', 'is not', null)
    .executeTakeFirst()
  return owner ? findSettings(db, owner.sub_id) : undefined
}

/** Every claim of the installation (the operator's list), domain then subscription. */
export async function listClaims(
  db: Executor,
): Promise<Array<{ domain: string; sub_id: string; granted_at: Date | null }>> {
  return db
    .selectFrom('sso_email_domains')
    .select(['domain', 'sub_id', 'granted_at'])
    .orderBy('domain')
    .orderBy('sub_id')
    .execute()
}

/** Grants a subscription's claim; false when it has none. The partial unique index keeps one grant per domain. */
export async function grantClaim(db: Executor, domain: string, subId: string, at: Date): Promise<boolean> {
  const res = await db
    .updateTable('sso_email_domains')
    .set({ granted_at: at })
    .where('domain', '=', domain)
    .where('sub_id', '=', subId)
    .executeTakeFirst()
  return res.numUpdatedRows > 0n
}

/** Back to pending, whoever holds the grant; how many claims changed. */
export async function revokeGrant(db: Executor, domain: string): Promise<number> {
  const res = await db
    .updateTable('sso_email_domains')
    .set({ granted_at: null })
    .where('domain', '=', domain)
    .where('granted_at', 'is not', null)
    .executeTakeFirst()
  return Number(res.numUpdatedRows)
}

/** Writes the settings and replaces the domains (call inside a transaction). */
export async function saveSettings(db: Executor, row: Insertable<SsoSettingsTable>, domains: string[]): Promise<void> {
  const { sub_id: _, created_at: __, ...change } = row
  await db
    .insertInto('sso_settings')
    .values(row)
    .onConflict((oc) => oc.column('sub_id').doUpdateSet(change))
    .execute()
  // A domain kept keeps its grant; one dropped loses it; a new one is pending.
  let gone = db.deleteFrom('sso_email_domains').where('sub_id', '=', row.sub_id)
  if (domains.length > 0) gone = gone.where('domain', 'not in', domains)
  await gone.execute()
  if (domains.length > 0)
    await db
      .insertInto('sso_email_domains')
      .values(domains.map((domain) => ({ domain, sub_id: row.sub_id, granted_at: null })))
      .onConflict((oc) => oc.columns(['domain', 'sub_id']).doNothing())
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

/** Whether the subscription has an active admin whose password was set with the CLI (the break-glass door). */
export async function hasBreakGlassAdmin(db: Executor, subId: string, besides?: string): Promise<boolean> {
  let query = db
    .selectFrom('users')
    .select('user_id')
    .where('sub_id', '=', subId)
    .where('role', '=', 'admin')
    .where('status', '=', 'active')
    .where('password_from_cli', '=', true)
  if (besides !== undefined) query = query.where('user_id', '<>', besides)
  return (await query.executeTakeFirst()) !== undefined
}

/**
 * Whether password sign-in is off, locking the settings row until the transaction ends: two admins
 * losing their break-glass password at once are then checked one after the other.
 */
export async function lockPasswordSignInOff(db: Executor, subId: string): Promise<boolean> {
  const row = await db
    .selectFrom('sso_settings')
    .select('password_sign_in')
    .where('sub_id', '=', subId)
    .forUpdate()
    .executeTakeFirst()
  return row !== undefined && !row.password_sign_in
}

/** Forgets the user's identities at providers: the next sign-on records the one it brings (an admin's reset). */
export async function deleteIdentitiesOf(db: Executor, userId: string): Promise<void> {
  await db.deleteFrom('sso_identities').where('user_id', '=', userId).execute()
}

/** The user an identity at a provider was recorded for, if any. */
export async function findIdentityUser(db: Executor, issuer: string, subject: string): Promise<string | undefined> {
  const row = await db
    .selectFrom('sso_identities')
    .select('user_id')
    .where('issuer', '=', issuer)
    .where('subject', '=', subject)
    .executeTakeFirst()
  return row?.user_id
}

/** The subject the user is recorded with at this issuer, if any. */
export async function findSubjectOf(db: Executor, userId: string, issuer: string): Promise<string | undefined> {
  const row = await db
    .selectFrom('sso_identities')
    .select('subject')
    .where('user_id', '=', userId)
    .where('issuer', '=', issuer)
    .executeTakeFirst()
  return row?.subject
}

/** Records the user's identity at the issuer; false when either is already recorded (a race lost). */
export async function recordIdentity(
  db: Executor,
  row: { issuer: string; subject: string; user_id: string; created_at: Date },
): Promise<boolean> {
  const res = await db
    .insertInto('sso_identities')
    .values(row)
    .onConflict((oc) => oc.doNothing())
    .returning('user_id')
    .executeTakeFirst()
  return res !== undefined
}
