import { sql, type Selectable } from 'kysely'
import type { CustomFieldTable } from '../../platform/db/tables.js'
import type { Executor } from '../../platform/db/transaction.js'

const COLUMNS = [
  'custom_field_id',
  'sub_id',
  'name',
  'status',
  'data_type',
  'required',
  'options',
  'created_at',
  'updated_at',
  'deleted_at',
] as const
export type CustomFieldRow = Pick<Selectable<CustomFieldTable>, (typeof COLUMNS)[number]>

/** The writable part of a row; `options` as an array here, stored as jsonb. */
export interface CustomFieldWrite {
  name: string
  status: CustomFieldRow['status']
  data_type: CustomFieldRow['data_type']
  required: boolean
  options: string[] | null
}

const json = (options: string[] | null) => (options === null ? null : JSON.stringify(options))

export async function insertCustomField(
  db: Executor,
  row: CustomFieldWrite & { custom_field_id: string; sub_id: string; at: Date },
): Promise<void> {
  const { at, options, ...rest } = row
  await db
    .insertInto('custom_fields')
    .values({ ...rest, options: json(options), created_at: at, updated_at: at })
    .execute()
}

export async function findCustomField(
  db: Executor,
  subId: string,
  id: string,
  opts: { forUpdate?: boolean } = {},
): Promise<CustomFieldRow | undefined> {
  let q = db
    .selectFrom('custom_fields')
    .select(COLUMNS)
    .where('sub_id', '=', subId)
    .where('custom_field_id', '=', id)
    .where('deleted_at', 'is', null)
  if (opts.forUpdate) q = q.forUpdate()
  return q.executeTakeFirst()
}

export async function updateCustomField(
  db: Executor,
  subId: string,
  id: string,
  set: CustomFieldWrite & { at: Date },
): Promise<void> {
  const { at, options, ...rest } = set
  await db
    .updateTable('custom_fields')
    .set({ ...rest, options: json(options), updated_at: at })
    .where('sub_id', '=', subId)
    .where('custom_field_id', '=', id)
    .where('deleted_at', 'is', null)
    .execute()
}

export async function softDeleteCustomField(db: Executor, subId: string, id: string, at: Date): Promise<void> {
  await db
    .updateTable('custom_fields')
    .set({ deleted_at: at, updated_at: at })
    .where('sub_id', '=', subId)
    .where('custom_field_id', '=', id)
    .where('deleted_at', 'is', null)
    .execute()
}

export async function listCustomFields(
  db: Executor,
  f: { subId: string; status?: CustomFieldRow['status'] },
  page?: { skip: number; limit: number },
): Promise<{ rows: CustomFieldRow[]; total: number }> {
  let q = db.selectFrom('custom_fields').where('sub_id', '=', f.subId).where('deleted_at', 'is', null)
  if (f.status) q = q.where('status', '=', f.status)
  let rowsQuery = q
    .select(COLUMNS)
    .orderBy(sql`lower(name)`)
    .orderBy('custom_field_id')
  if (!page) {
    const rows = await rowsQuery.execute()
    return { rows, total: rows.length }
  }
  rowsQuery = rowsQuery.offset(page.skip).limit(page.limit)
  const [rows, total] = await Promise.all([
    rowsQuery.execute(),
    q.select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow(),
  ])
  return { rows, total: Number(total.n) }
}
