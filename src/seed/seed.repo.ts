import { sql } from 'kysely'
import type { Executor } from '../db/transaction.js'

/**
 * Bulk inserts through unnest(): one statement and one round trip per batch of thousands of rows,
 * the same SQL on PostgreSQL and PGlite.
 */
export interface PackageBatch {
  package_id: string[]; tracking_number: string[]; carrier_id: string[]; current_status: string[]; damaged: boolean[]; archived: boolean[]
  receiver_id: string[]; sender_id: (string | null)[]; given_to_id: (string | null)[]; site_id: string[]; package_location: (string | null)[]
  comment: (string | null)[]; user_name: string[]; delivery_time: (string | null)[]; created_at: string[]; updated_at: string[]; activity_count: number[]
}

export async function insertPackages(db: Executor, subId: string, b: PackageBatch): Promise<void> {
  await sql`
    insert into packages (package_id, sub_id, tracking_number, asset_type, carrier_id, current_status, damaged, archived, receiver_id, sender_id, given_to_id,
                          site_id, package_location, comment, user_name, receive_clerk, delivery_clerk, delivery_time, created_at, updated_at, archived_at, version, activity_count, event_count)
    select u.id, ${subId}, u.tn, 'PACKAGE', u.carrier, u.status, u.damaged, u.archived, u.receiver, u.sender, u.given_to,
           u.site, u.ploc, u.comment, u.usr, u.usr, case when u.delivered is null then null else u.usr end, u.delivered, u.created, u.updated,
           case when u.archived then u.updated else null end, u.acts, u.acts, 0
      from unnest(${b.package_id}::text[], ${b.tracking_number}::text[], ${b.carrier_id}::text[], ${b.current_status}::text[], ${b.damaged}::boolean[], ${b.archived}::boolean[],
                  ${b.receiver_id}::text[], ${b.sender_id}::text[], ${b.given_to_id}::text[], ${b.site_id}::text[], ${b.package_location}::text[], ${b.comment}::text[],
                  ${b.user_name}::text[], ${b.delivery_time}::timestamptz[], ${b.created_at}::timestamptz[], ${b.updated_at}::timestamptz[], ${b.activity_count}::int[])
           as u(id, tn, carrier, status, damaged, archived, receiver, sender, given_to, site, ploc, comment, usr, delivered, created, updated, acts)`.execute(db)
}

export interface ActivityBatch {
  activity_id: string[]; package_id: string[]; sequence: number[]; status: string[]; site_id: string[]; damaged: boolean[]; user_name: string[]; occurred_at: string[]
}

export async function insertActivities(db: Executor, subId: string, b: ActivityBatch): Promise<void> {
  await sql`
    insert into package_activities (activity_id, sub_id, package_id, sequence, status, site_id, damaged, user_name, occurred_at)
    select u.id, ${subId}, u.pkg, u.seq, u.status, u.site, u.damaged, u.usr, u.at
      from unnest(${b.activity_id}::text[], ${b.package_id}::text[], ${b.sequence}::int[], ${b.status}::text[], ${b.site_id}::text[], ${b.damaged}::boolean[], ${b.user_name}::text[], ${b.occurred_at}::timestamptz[])
           as u(id, pkg, seq, status, site, damaged, usr, at)`.execute(db)
}

export interface ContactBatch {
  contact_id: string[]; contact_type: string[]; name: string[]; company: (string | null)[]; email: string[]; personal_id: string[]; match_name: string[]; match_company: (string | null)[]
}

export async function insertContacts(db: Executor, subId: string, b: ContactBatch, at: Date): Promise<void> {
  await sql`
    insert into contacts (contact_id, sub_id, contact_type, name, company, email, personal_id, status, match_name, match_company, created_at, updated_at)
    select u.id, ${subId}, u.type, u.name, u.company, u.email, u.pid, 'active', u.mname, u.mcompany, ${at}, ${at}
      from unnest(${b.contact_id}::text[], ${b.contact_type}::text[], ${b.name}::text[], ${b.company}::text[], ${b.email}::text[], ${b.personal_id}::text[], ${b.match_name}::text[], ${b.match_company}::text[])
           as u(id, type, name, company, email, pid, mname, mcompany)`.execute(db)
}

export async function analyze(db: Executor): Promise<void> {
  await sql`analyze packages`.execute(db)
  await sql`analyze package_activities`.execute(db)
  await sql`analyze contacts`.execute(db)
}

export async function insertLocation(db: Executor, row: { location_id: string; sub_id: string; name: string; postalCode: string; city: string; at: Date }): Promise<void> {
  await db.insertInto('locations').values({
    location_id: row.location_id, sub_id: row.sub_id, name: row.name, timezone: 'America/New_York', created_at: row.at, updated_at: row.at,
    address: JSON.stringify({ line1: '1 Main St', city: row.city, state: 'NY', postalCode: row.postalCode, country: 'US' }),
  }).execute()
}

export async function insertSite(db: Executor, row: { site_id: string; sub_id: string; name: string; type: 'site' | 'building' | 'floor' | 'shelf' | 'locker'; parent_id: string | null; location_id: string; ancestor_ids: string[]; path_names: string[]; is_primary: boolean; at: Date }): Promise<void> {
  const { at, ...rest } = row
  await db.insertInto('inbound_sites').values({ ...rest, status: 'active', created_at: at, updated_at: at }).execute()
}
