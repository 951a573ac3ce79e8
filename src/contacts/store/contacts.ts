import { sql, type Insertable, type Selectable, type Updateable } from 'kysely'
import type { ContactTable } from '../../platform/db/tables.js'
import type { Executor } from '../../platform/db/transaction.js'

/** A contact's columns as the service reads them (the directory's add its own: store/directory.ts). */
export const COLUMNS = [
  'contact_id',
  'sub_id',
  'contact_type',
  'name',
  'company',
  'email',
  'phone',
  'personal_id',
  'location_site_id',
  'mail_stop_site_id',
  'status',
  'notify',
  'language',
  'match_name',
  'match_company',
  'aliases',
  'unit',
  'external_id',
  'source',
  'is_group',
  'move_in',
  'move_out',
  'created_at',
  'updated_at',
  'deleted_at',
] as const
export type ContactRow = Pick<Selectable<ContactTable>, (typeof COLUMNS)[number]>
export type NewContactRow = Insertable<ContactTable>
export type ContactRowUpdate = Omit<Updateable<ContactTable>, 'contact_id' | 'sub_id' | 'created_at'>

export async function insertContact(db: Executor, row: NewContactRow): Promise<void> {
  await db.insertInto('contacts').values(row).execute()
}

export async function findContact(
  db: Executor,
  subId: string,
  contactId: string,
  opts: { forUpdate?: boolean } = {},
): Promise<ContactRow | undefined> {
  let q = db
    .selectFrom('contacts')
    .select(COLUMNS)
    .where('sub_id', '=', subId)
    .where('contact_id', '=', contactId)
    .where('deleted_at', 'is', null)
  if (opts.forUpdate) q = q.forUpdate()
  return q.executeTakeFirst()
}

/** Deleted and inactive rows included: packages keep showing the contacts of their history. */
export async function findContactsByIds(db: Executor, subId: string, ids: string[]): Promise<ContactRow[]> {
  if (ids.length === 0) return []
  return db.selectFrom('contacts').select(COLUMNS).where('sub_id', '=', subId).where('contact_id', 'in', ids).execute()
}

export async function updateContact(
  db: Executor,
  subId: string,
  contactId: string,
  set: ContactRowUpdate,
): Promise<void> {
  await db
    .updateTable('contacts')
    .set(set)
    .where('sub_id', '=', subId)
    .where('contact_id', '=', contactId)
    .where('deleted_at', 'is', null)
    .execute()
}

export interface ContactFilter {
  subId: string
  /** Already lower-cased. */
  prefix?: string
  types?: Array<ContactRow['contact_type']>
  status?: ContactRow['status']
}

/** `\`, `%` and `_` are literal in a typeahead prefix. */
function likePrefix(s: string): string {
  return `${s.replace(/[\\%_]/g, (c) => `\\${c}`)}%`
}

export async function listContacts(
  db: Executor,
  f: ContactFilter,
  page: { skip: number; limit: number },
): Promise<{ rows: ContactRow[]; total: number }> {
  let q = db.selectFrom('contacts').where('sub_id', '=', f.subId).where('deleted_at', 'is', null)
  if (f.prefix) {
    // Same expressions as the contacts_*_prefix_idx indexes (lower(col) text_pattern_ops), so each arm is an index range scan.
    const p = likePrefix(f.prefix)
    q = q.where((eb) =>
      eb.or([
        eb(sql`lower(name)`, 'like', p),
        eb(sql`lower(email)`, 'like', p),
        eb(sql`lower(personal_id)`, 'like', p),
      ]),
    )
  }
  if (f.types) q = q.where('contact_type', 'in', f.types)
  if (f.status) q = q.where('status', '=', f.status)
  const [rows, total] = await Promise.all([
    q
      .select(COLUMNS)
      .orderBy(sql`lower(name)`)
      .orderBy('contact_id')
      .offset(page.skip)
      .limit(page.limit)
      .execute(),
    q.select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow(),
  ])
  return { rows, total: Number(total.n) }
}

/** Live, active contacts a package can be addressed to whose normalised name is `matchName`. */
export async function findReceiversByMatchName(
  db: Executor,
  subId: string,
  matchName: string,
  max: number,
): Promise<ContactRow[]> {
  return db
    .selectFrom('contacts')
    .select(COLUMNS)
    .where('sub_id', '=', subId)
    .where('match_name', '=', matchName)
    .where('deleted_at', 'is', null)
    .where('status', '=', 'active')
    .where('contact_type', 'in', ['RECEIVER', 'ALL'])
    .orderBy('name')
    .orderBy('contact_id')
    .limit(max)
    .execute()
}

/** Receivers at a company: the company as the contact's own name, or as its company. */
export async function findReceiversByMatchCompany(
  db: Executor,
  subId: string,
  matchCompany: string,
  max: number,
): Promise<ContactRow[]> {
  return db
    .selectFrom('contacts')
    .select(COLUMNS)
    .where('sub_id', '=', subId)
    .where((eb) => eb.or([eb('match_name', '=', matchCompany), eb('match_company', '=', matchCompany)]))
    .where('deleted_at', 'is', null)
    .where('status', '=', 'active')
    .where('contact_type', 'in', ['RECEIVER', 'ALL'])
    .orderBy('name')
    .orderBy('contact_id')
    .limit(max)
    .execute()
}

// Rows per INSERT and values per IN list: far below PostgreSQL's 65,535 bind parameters.
const CHUNK = 1000

function chunks<T>(items: readonly T[]): T[][] {
  const out: T[][] = []
  for (let i = 0; i < items.length; i += CHUNK) out.push(items.slice(i, i + CHUNK))
  return out
}

export async function insertContacts(db: Executor, rows: readonly NewContactRow[]): Promise<void> {
  for (const part of chunks(rows)) await db.insertInto('contacts').values(part).execute()
}

/** Live contacts whose `column`, lower-cased, is one of `values` (already lower-cased). */
async function findLiveByLower(
  db: Executor,
  subId: string,
  column: 'email' | 'personal_id',
  values: readonly string[],
): Promise<ContactRow[]> {
  const out: ContactRow[] = []
  for (const part of chunks(values))
    out.push(
      ...(await db
        .selectFrom('contacts')
        .select(COLUMNS)
        .where('sub_id', '=', subId)
        .where(sql`lower(${sql.ref(column)})`, 'in', part)
        .where('deleted_at', 'is', null)
        .execute()),
    )
  return out
}

/** Live contacts whose email is one of `emails` (already lower-cased), compared ignoring case. */
export const findLiveByEmails = (db: Executor, subId: string, emails: readonly string[]) =>
  findLiveByLower(db, subId, 'email', emails)

/** Live contacts whose personal id is one of `personalIds` (already lower-cased), ignoring case. */
export const findLiveByPersonalIds = (db: Executor, subId: string, personalIds: readonly string[]) =>
  findLiveByLower(db, subId, 'personal_id', personalIds)

/** One page of live contacts in id order after `after` (keyset: the export walks them all). */
export async function pageLiveContacts(
  db: Executor,
  subId: string,
  after: string | null,
  limit: number,
): Promise<ContactRow[]> {
  let q = db.selectFrom('contacts').select(COLUMNS).where('sub_id', '=', subId).where('deleted_at', 'is', null)
  if (after !== null) q = q.where('contact_id', '>', after)
  return q.orderBy('contact_id').limit(limit).execute()
}

/** Live contacts with no email and no personal id whose normalised name is one of `matchNames`. */
export async function findLiveUnkeyedByMatchNames(
  db: Executor,
  subId: string,
  matchNames: readonly string[],
): Promise<ContactRow[]> {
  const out: ContactRow[] = []
  for (const part of chunks(matchNames))
    out.push(
      ...(await db
        .selectFrom('contacts')
        .select(COLUMNS)
        .where('sub_id', '=', subId)
        .where('match_name', 'in', part)
        .where('email', 'is', null)
        .where('personal_id', 'is', null)
        .where('deleted_at', 'is', null)
        .execute()),
    )
  return out
}
