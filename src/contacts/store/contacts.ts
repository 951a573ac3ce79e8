import { sql, type Insertable, type Selectable, type Updateable } from 'kysely'
import type { ContactTable } from '../../platform/db/tables.js'
import type { Executor } from '../../platform/db/transaction.js'

const COLUMNS = [
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
