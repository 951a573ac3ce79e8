import { sql } from 'kysely'
import type { Executor } from '../../platform/db/transaction.js'

/**
 * Bulk inserts through unnest(): one statement and one round trip per batch of thousands of rows,
 * the same SQL on PostgreSQL and PGlite.
 */
export interface PackageBatch {
  package_id: string[]
  tracking_number: string[]
  carrier_id: string[]
  current_status: string[]
  damaged: boolean[]
  archived: boolean[]
  receiver_id: string[]
  sender_id: (string | null)[]
  given_to_id: (string | null)[]
  site_id: string[]
  package_location: (string | null)[]
  locker_bank: (string | null)[]
  locker_unit: (string | null)[]
  custom_fields: string[]
  comment: (string | null)[]
  user_name: string[]
  delivery_time: (string | null)[]
  created_at: string[]
  updated_at: string[]
  activity_count: number[]
}

export async function insertPackages(db: Executor, subId: string, b: PackageBatch): Promise<void> {
  await sql`
    insert into packages (package_id, sub_id, tracking_number, asset_type, carrier_id, current_status, damaged, archived, receiver_id, sender_id, given_to_id,
                          site_id, package_location, locker_bank, locker_unit, custom_fields, comment, user_name, receive_clerk, delivery_clerk, delivery_time,
                          created_at, updated_at, archived_at, version, activity_count, event_count)
    select u.id, ${subId}, u.tn, 'PACKAGE', u.carrier, u.status, u.damaged, u.archived, u.receiver, u.sender, u.given_to,
           u.site, u.ploc, u.bank, u.unit, u.fields::jsonb, u.comment, u.usr, u.usr, case when u.delivered is null then null else u.usr end, u.delivered,
           u.created, u.updated, case when u.archived then u.updated else null end, u.acts, u.acts, 0
      from unnest(${b.package_id}::text[], ${b.tracking_number}::text[], ${b.carrier_id}::text[], ${b.current_status}::text[], ${b.damaged}::boolean[], ${b.archived}::boolean[],
                  ${b.receiver_id}::text[], ${b.sender_id}::text[], ${b.given_to_id}::text[], ${b.site_id}::text[], ${b.package_location}::text[],
                  ${b.locker_bank}::text[], ${b.locker_unit}::text[], ${b.custom_fields}::text[], ${b.comment}::text[],
                  ${b.user_name}::text[], ${b.delivery_time}::timestamptz[], ${b.created_at}::timestamptz[], ${b.updated_at}::timestamptz[], ${b.activity_count}::int[])
           as u(id, tn, carrier, status, damaged, archived, receiver, sender, given_to, site, ploc, bank, unit, fields, comment, usr, delivered, created, updated, acts)`.execute(
    db,
  )
}

export interface ActivityBatch {
  activity_id: string[]
  package_id: string[]
  sequence: number[]
  status: string[]
  site_id: string[]
  damaged: boolean[]
  user_name: string[]
  occurred_at: string[]
  locker_bank: (string | null)[]
  locker_unit: (string | null)[]
}

export async function insertActivities(db: Executor, subId: string, b: ActivityBatch): Promise<void> {
  await sql`
    insert into package_activities (activity_id, sub_id, package_id, sequence, status, site_id, locker_bank, locker_unit, damaged, user_name, occurred_at)
    select u.id, ${subId}, u.pkg, u.seq, u.status, u.site, u.bank, u.unit, u.damaged, u.usr, u.at
      from unnest(${b.activity_id}::text[], ${b.package_id}::text[], ${b.sequence}::int[], ${b.status}::text[], ${b.site_id}::text[], ${b.locker_bank}::text[], ${b.locker_unit}::text[],
                  ${b.damaged}::boolean[], ${b.user_name}::text[], ${b.occurred_at}::timestamptz[])
           as u(id, pkg, seq, status, site, bank, unit, damaged, usr, at)`.execute(db)
}

export interface ContactBatch {
  contact_id: string[]
  contact_type: string[]
  name: string[]
  company: (string | null)[]
  email: string[]
  personal_id: string[]
  match_name: string[]
  match_company: (string | null)[]
}

export async function insertContacts(db: Executor, subId: string, b: ContactBatch, at: Date): Promise<void> {
  await sql`
    insert into contacts (contact_id, sub_id, contact_type, name, company, email, personal_id, status, match_name, match_company, created_at, updated_at)
    select u.id, ${subId}, u.type, u.name, u.company, u.email, u.pid, 'active', u.mname, u.mcompany, ${at}, ${at}
      from unnest(${b.contact_id}::text[], ${b.contact_type}::text[], ${b.name}::text[], ${b.company}::text[], ${b.email}::text[], ${b.personal_id}::text[], ${b.match_name}::text[], ${b.match_company}::text[])
           as u(id, type, name, company, email, pid, mname, mcompany)`.execute(db)
}

/**
 * The tally triggers of packages (migration 0010) on or off, inside the bulk load's transaction:
 * row by row they would leave a delta per batch and key; the load counts the tallies once at its
 * end instead (tallySubscription). Off only for that transaction: it rolls back with a failed load.
 */
export async function setTallyTriggers(db: Executor, on: boolean): Promise<void> {
  await sql`alter table packages ${sql.raw(on ? 'enable' : 'disable')} trigger packages_tally_insert`.execute(db)
}

export async function hasPackages(db: Executor): Promise<boolean> {
  return (await db.selectFrom('packages').select('package_id').limit(1).execute()).length > 0
}

/** An index as dropSecondaryIndexes found it: enough to build it again as it was. */
export interface DroppedIndex {
  name: string
  definition: string
  /** The statistics target set on its columns (see migration 0009), as [column number, target]. */
  statistics: Array<[number, number]>
}

/**
 * Drops the indexes of `tables` that back no constraint (all but the primary keys), and returns
 * their definitions and column statistics targets for createIndexes. A unique index is rebuilt
 * unique, which checks the loaded rows as a whole. Run in the transaction that loads.
 */
export async function dropSecondaryIndexes(db: Executor, tables: string[]): Promise<DroppedIndex[]> {
  // attstattarget > 0: set by ALTER INDEX (the default is -1 before PostgreSQL 17, null since).
  const { rows } = await sql<DroppedIndex>`
    select c.relname as name, pg_get_indexdef(i.indexrelid) as definition,
           coalesce((select json_agg(json_build_array(a.attnum, a.attstattarget) order by a.attnum)
                       from pg_attribute a where a.attrelid = i.indexrelid and a.attstattarget > 0), '[]'::json) as statistics
      from pg_index i join pg_class c on c.oid = i.indexrelid join pg_class t on t.oid = i.indrelid
     where t.relname = any(${tables}::text[]) and t.relnamespace = current_schema()::regnamespace
       and not i.indisprimary and not exists (select 1 from pg_constraint k where k.conindid = i.indexrelid)
     order by c.relname`.execute(db)
  for (const r of rows) await sql`drop index ${sql.id(r.name)}`.execute(db)
  return rows.map((r) => ({
    ...r,
    statistics: typeof r.statistics === 'string' ? (JSON.parse(r.statistics) as Array<[number, number]>) : r.statistics,
  }))
}

export async function createIndexes(db: Executor, indexes: DroppedIndex[]): Promise<void> {
  await sql`set local maintenance_work_mem = '256MB'`.execute(db)
  for (const i of indexes) {
    await sql.raw(i.definition).execute(db)
    for (const [column, target] of i.statistics)
      await sql`alter index ${sql.id(i.name)} alter column ${sql.raw(String(column))} set statistics ${sql.raw(String(target))}`.execute(
        db,
      )
  }
}

/**
 * Drops the foreign keys declared on `tables` and returns them for addForeignKeys: checked row by
 * row they cost three times the insert itself; re-added, each is one join over the loaded rows
 * (PostgreSQL manual, "Populating a Database"). Run in the transaction that loads.
 */
export async function dropForeignKeys(
  db: Executor,
  tables: string[],
): Promise<Array<{ table: string; name: string; definition: string }>> {
  const { rows } = await sql<{ table: string; name: string; definition: string }>`
    select t.relname as table, k.conname as name, pg_get_constraintdef(k.oid) as definition
      from pg_constraint k join pg_class t on t.oid = k.conrelid
     where k.contype = 'f' and t.relname = any(${tables}::text[]) and t.relnamespace = current_schema()::regnamespace
     order by t.relname, k.conname`.execute(db)
  for (const r of rows) await sql`alter table ${sql.table(r.table)} drop constraint ${sql.id(r.name)}`.execute(db)
  return rows
}

export async function addForeignKeys(
  db: Executor,
  keys: Array<{ table: string; name: string; definition: string }>,
): Promise<void> {
  for (const k of keys)
    await sql`alter table ${sql.table(k.table)} add constraint ${sql.id(k.name)} ${sql.raw(k.definition)}`.execute(db)
}

/**
 * Statistics for the planner, and the visibility map that lets counts read indexes alone (an
 * index-only scan skips the table only for pages vacuum has marked all-visible).
 */
export async function vacuumAnalyze(db: Executor): Promise<void> {
  for (const table of ['packages', 'package_activities', 'contacts', 'package_tallies'])
    await sql`vacuum (analyze) ${sql.table(table)}`.execute(db)
}

export async function insertCustomField(
  db: Executor,
  row: {
    custom_field_id: string
    sub_id: string
    name: string
    data_type: 'TEXT' | 'LIST'
    options: string[] | null
    at: Date
  },
): Promise<void> {
  const { at, options, ...rest } = row
  await db
    .insertInto('custom_fields')
    .values({
      ...rest,
      status: 'ACTIVE',
      required: false,
      options: options ? JSON.stringify(options) : null,
      created_at: at,
      updated_at: at,
    })
    .execute()
}

export async function insertLocation(
  db: Executor,
  row: { location_id: string; sub_id: string; name: string; postalCode: string; city: string; at: Date },
): Promise<void> {
  await db
    .insertInto('locations')
    .values({
      location_id: row.location_id,
      sub_id: row.sub_id,
      name: row.name,
      timezone: 'America/New_York',
      created_at: row.at,
      updated_at: row.at,
      address: JSON.stringify({
        line1: '1 Main St',
        city: row.city,
        state: 'NY',
        postalCode: row.postalCode,
        country: 'US',
      }),
    })
    .execute()
}

export async function insertSite(
  db: Executor,
  row: {
    site_id: string
    sub_id: string
    name: string
    type: 'site' | 'building' | 'floor' | 'shelf' | 'locker'
    parent_id: string | null
    location_id: string
    ancestor_ids: string[]
    path_names: string[]
    is_primary: boolean
    at: Date
  },
): Promise<void> {
  const { at, ...rest } = row
  await db
    .insertInto('inbound_sites')
    .values({ ...rest, status: 'active', created_at: at, updated_at: at })
    .execute()
}
