import { sql, type Kysely } from 'kysely'

// Frozen once landed: never edit, add a new numbered migration instead.
//
// Shelves are things (issue 30.1): a storage site of the tree (a shelf, bin, cage or locker bank
// under a site) gets a short label code, printed as a Code 128 and scanned at the desk to file
// parcels there; each audit of a shelf (what should be there against what was scanned) is kept, so
// a parcel missing from its shelf stays known after the audit screen is closed.
export async function up(db: Kysely<any>): Promise<void> {
  await sql`
    create table shelves (
      sub_id text not null,
      site_id text not null,
      code text not null,
      kind text not null,
      created_at timestamptz not null,
      constraint shelves_pk primary key (sub_id, site_id),
      constraint shelves_kind_check check (kind in ('shelf', 'bin', 'cage', 'locker_bank'))
    )`.execute(db)
  // A scanned code names one shelf of the subscription.
  await sql`create unique index shelves_code_uq on shelves (sub_id, code)`.execute(db)
  await sql`
    create table shelf_audits (
      audit_id text primary key,
      sub_id text not null,
      site_id text not null,
      audited_by text not null,
      audited_at timestamptz not null,
      found_ids jsonb not null,
      missing_ids jsonb not null,
      misplaced_ids jsonb not null,
      unknown_scans jsonb not null
    )`.execute(db)
  await sql`create index shelf_audits_site_idx on shelf_audits (sub_id, site_id, audited_at desc)`.execute(db)
}

export async function down(db: Kysely<any>): Promise<void> {
  await sql`drop table shelf_audits`.execute(db)
  await sql`drop table shelves`.execute(db)
}
