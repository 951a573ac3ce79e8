import { sql, type ExpressionBuilder, type Expression, type SqlBool, type Selectable } from 'kysely'
import type { ContactSource, ContactTable, Database } from '../../platform/db/tables.js'
import type { Executor } from '../../platform/db/transaction.js'
import { CASE_INSENSITIVE, type DirectoryCondition, type DirectoryField } from '../model/directory-query.js'
import './directory-tables.js'
import { COLUMNS } from './contacts.js'

/** Every column the directory reads: the contact and its directory attributes. */
export const DIRECTORY_COLUMNS = [...COLUMNS, 'user_name', 'scim_attributes', 'departure_noted_at'] as const
export type DirectoryRow = Pick<Selectable<ContactTable>, (typeof DIRECTORY_COLUMNS)[number]>

const COLUMN: Record<Exclude<DirectoryField, 'member' | 'active'>, keyof ContactTable> = {
  userName: 'user_name',
  externalId: 'external_id',
  contactId: 'contact_id',
  email: 'email',
  name: 'name',
}

/** `\`, `%` and `_` are literal in a SCIM value compared with co/sw/ew. */
const literal = (s: string) => s.replace(/[\\%_]/g, (c) => `\\${c}`)

type Eb = ExpressionBuilder<Database, 'contacts'>

function condition(eb: Eb, c: DirectoryCondition): Expression<SqlBool> {
  switch (c.op) {
    case 'and':
      return eb.and(c.of.map((x) => condition(eb, x)))
    case 'or':
      return eb.or(c.of.map((x) => condition(eb, x)))
    case 'not':
      return eb.not(condition(eb, c.of))
    case 'pr':
      return eb(COLUMN[c.field], 'is not', null)
    default:
  }
  if (c.field === 'active') return eb('status', c.op === 'eq' ? '=' : '<>', c.value ? 'active' : 'inactive')
  if (c.field === 'member')
    return eb.exists(
      eb
        .selectFrom('contact_delegates as d')
        .select(sql`1`.as('one'))
        .whereRef('d.sub_id', '=', 'contacts.sub_id')
        .whereRef('d.contact_id', '=', 'contacts.contact_id')
        .where('d.delegate_id', '=', c.value),
    )
  const ci = CASE_INSENSITIVE.has(c.field)
  const col = ci ? sql<string>`lower(${sql.ref(COLUMN[c.field])})` : sql<string>`${sql.ref(COLUMN[c.field])}`
  const v = ci ? c.value.toLowerCase() : c.value
  switch (c.op) {
    case 'eq':
      return eb(col, '=', v)
    case 'ne':
      // SCIM: an absent attribute is "not equal" to any value.
      return eb.or([eb(col, '<>', v), eb(COLUMN[c.field], 'is', null)])
    case 'co':
      return eb(col, 'like', `%${literal(v)}%`)
    case 'sw':
      return eb(col, 'like', `${literal(v)}%`)
    case 'ew':
      return eb(col, 'like', `%${literal(v)}`)
  }
}

export type DirectoryKind = 'user' | 'group'

/**
 * A page of the directory's live contacts of one kind matching `where`, in creation order (a
 * provider pages with startIndex, RFC 7644 §3.4.2.4, so the order must hold between requests).
 * Users: contacts provisioned by SCIM (they have a userName). Groups: group contacts provisioned by SCIM.
 */
export async function queryDirectory(
  db: Executor,
  subId: string,
  kind: DirectoryKind,
  where: DirectoryCondition | undefined,
  page: { offset: number; limit: number },
): Promise<{ rows: DirectoryRow[]; total: number }> {
  let q = db
    .selectFrom('contacts')
    .where('sub_id', '=', subId)
    .where('deleted_at', 'is', null)
    .where('is_group', '=', kind === 'group')
  q = kind === 'user' ? q.where('user_name', 'is not', null) : q.where('source', '=', 'scim')
  if (where) q = q.where((eb) => condition(eb, where))
  const total = await q.select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow()
  const rows =
    page.limit === 0
      ? []
      : await q
          .select(DIRECTORY_COLUMNS)
          .orderBy('created_at')
          .orderBy('contact_id')
          .offset(page.offset)
          .limit(page.limit)
          .execute()
  return { rows, total: Number(total.n) }
}

export async function findDirectoryContact(
  db: Executor,
  subId: string,
  contactId: string,
  opts: { forUpdate?: boolean } = {},
): Promise<VersionedRow | undefined> {
  let q = db
    .selectFrom('contacts')
    .select(DIRECTORY_COLUMNS)
    .select(VERSION)
    .where('sub_id', '=', subId)
    .where('contact_id', '=', contactId)
    .where('deleted_at', 'is', null)
  if (opts.forUpdate) q = q.forUpdate()
  return q.executeTakeFirst()
}

/**
 * The row's version for a write without a lock (read, compute, write if unchanged): PostgreSQL's
 * `xmin`, the transaction that wrote this version of the row, which every update changes. Neither
 * `updated_at` (equal within a millisecond, or under a test's fixed clock) nor a column of ours.
 */
const VERSION = sql<string>`xmin::text`.as('row_version')
export type VersionedRow = DirectoryRow & { row_version: string }

/**
 * The live contact a provisioned person is, if one exists, in one statement: by externalId, else
 * (not yet provisioned) by email: an existing manual contact is adopted rather than duplicated.
 */
export async function findProvisioned(
  db: Executor,
  subId: string,
  keys: { externalId?: string | null; email?: string | null },
): Promise<DirectoryRow | undefined> {
  const { externalId, email } = keys
  if (!externalId && !email) return undefined
  const rows = await db
    .selectFrom('contacts')
    .select(DIRECTORY_COLUMNS)
    .where('sub_id', '=', subId)
    .where('deleted_at', 'is', null)
    .where('is_group', '=', false)
    .where((eb) =>
      eb.or([
        ...(externalId ? [eb('external_id', '=', externalId)] : []),
        ...(email
          ? [
              eb.and([
                eb(sql`lower(email)`, '=', email.toLowerCase()),
                eb('user_name', 'is', null),
                eb('external_id', 'is', null),
              ]),
            ]
          : []),
      ]),
    )
    .orderBy('created_at')
    .orderBy('contact_id')
    .limit(20)
    .execute()
  return (externalId ? rows.find((r) => r.external_id === externalId) : undefined) ?? rows[0]
}

/** Inserts a contact and answers it as stored (defaults included). */
export async function insertDirectoryContact(db: Executor, row: Record<string, unknown>): Promise<VersionedRow> {
  return db
    .insertInto('contacts')
    .values(row as never)
    .returning(DIRECTORY_COLUMNS)
    .returning(VERSION)
    .executeTakeFirstOrThrow()
}

export async function updateDirectoryContact(
  db: Executor,
  subId: string,
  contactId: string,
  set: Record<string, unknown>,
): Promise<void> {
  await db
    .updateTable('contacts')
    .set(set as never)
    .where('sub_id', '=', subId)
    .where('contact_id', '=', contactId)
    .execute()
}

/** Updates the contact if it is still at `version`; the row as stored, or undefined when another write came first. */
export async function updateDirectoryContactAt(
  db: Executor,
  subId: string,
  contactId: string,
  version: string,
  set: Record<string, unknown>,
): Promise<VersionedRow | undefined> {
  return db
    .updateTable('contacts')
    .set(set as never)
    .where('sub_id', '=', subId)
    .where('contact_id', '=', contactId)
    .where('deleted_at', 'is', null)
    .where(sql`xmin::text`, '=', version)
    .returning(DIRECTORY_COLUMNS)
    .returning(VERSION)
    .executeTakeFirst()
}

/** Live, non-group contacts of the subscription with any of `externalIds`, or from `source` (a sync's whole view). */
export async function syncCandidates(
  db: Executor,
  subId: string,
  source: ContactSource,
  externalIds: readonly string[],
): Promise<DirectoryRow[]> {
  const bySource = await db
    .selectFrom('contacts')
    .select(DIRECTORY_COLUMNS)
    .where('sub_id', '=', subId)
    .where('deleted_at', 'is', null)
    .where('is_group', '=', false)
    .where('source', '=', source)
    .execute()
  const seen = new Set(bySource.map((r) => r.contact_id))
  const out = [...bySource]
  const CHUNK = 1000
  for (let i = 0; i < externalIds.length; i += CHUNK) {
    const part = externalIds.slice(i, i + CHUNK)
    for (const r of await db
      .selectFrom('contacts')
      .select(DIRECTORY_COLUMNS)
      .where('sub_id', '=', subId)
      .where('deleted_at', 'is', null)
      .where('source', '<>', source)
      .where('external_id', 'in', part)
      .execute())
      if (!seen.has(r.contact_id)) out.push(r)
  }
  return out
}

export async function insertDirectoryContacts(db: Executor, rows: Array<Record<string, unknown>>): Promise<void> {
  for (let i = 0; i < rows.length; i += 1000)
    await db
      .insertInto('contacts')
      .values(rows.slice(i, i + 1000) as never)
      .execute()
}

/** Live contacts with any of `externalIds`, compared exactly (unique among live contacts). */
export async function findByExternalIds(
  db: Executor,
  subId: string,
  externalIds: readonly string[],
): Promise<DirectoryRow[]> {
  const out: DirectoryRow[] = []
  for (let i = 0; i < externalIds.length; i += 1000)
    out.push(
      ...(await db
        .selectFrom('contacts')
        .select(DIRECTORY_COLUMNS)
        .where('sub_id', '=', subId)
        .where('external_id', 'in', externalIds.slice(i, i + 1000))
        .where('deleted_at', 'is', null)
        .execute()),
    )
  return out
}
