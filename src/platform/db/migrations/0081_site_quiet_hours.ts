import { sql, type Kysely } from 'kysely'

// Frozen once landed: never edit, add a new numbered migration instead.
//
// Issue 29, quiet hours per site: a site's own window for texts ('HH:MM' start and end, local to
// the site), inherited down the tree as its holding fee is; both null: the nearest ancestor's, else
// the facility's (notification_sms_settings). Set together or not at all.
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`alter table inbound_sites
    add column quiet_start text check (quiet_start ~ '^([01][0-9]|2[0-3]):[0-5][0-9]$'),
    add column quiet_end text check (quiet_end ~ '^([01][0-9]|2[0-3]):[0-5][0-9]$'),
    add constraint inbound_sites_quiet_hours_both check ((quiet_start is null) = (quiet_end is null))`.execute(db)
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`alter table inbound_sites drop constraint inbound_sites_quiet_hours_both,
    drop column quiet_start, drop column quiet_end`.execute(db)
}
