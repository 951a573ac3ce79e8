import { sql, type Kysely } from 'kysely'

// Frozen once landed: never edit, add a new numbered migration instead.
//
// An LDAP sync holds a lease while it runs (`run_lease`: the holder, `run_lease_until`: when it
// lapses unless renewed): the scheduled run and "sync now", in any process, claim it the same way,
// so two syncs of one directory never overlap. `max_deactivation_percent`: the most of the
// subscription's active LDAP contacts one run may deactivate without an admin's confirmation
// (docs/directory.md, "Mass deactivation"); 10 by default, 50 at most.
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`alter table ldap_settings
    add column run_lease text,
    add column run_lease_until timestamptz,
    add column max_deactivation_percent integer not null default 10
      check (max_deactivation_percent between 1 and 50)`.execute(db)
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`alter table ldap_settings
    drop column max_deactivation_percent,
    drop column run_lease_until,
    drop column run_lease`.execute(db)
}
