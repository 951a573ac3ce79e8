import { sql, type Kysely } from 'kysely'

// Frozen once landed: never edit, add a new numbered migration instead.
//
// Migration 0061 made every email domain claim pending until the operator grants it, claims made
// before it included: an upgrade turned single sign-on off for every organisation using it until
// the operator granted each domain by hand. Before 0061 a domain had one claim across the
// installation (its primary key), first come, and it was in force. So a claim made before 0061 stays
// in force where it is still the only claim of its domain and no grant exists for it. "Made
// before 0061": its subscription's settings were last saved before 0061 ran (the migrator's own
// record of when); a claim saved since then was made knowing claims need a grant, and stays pending.
// Where another subscription has claimed the domain since, the operator decides (docs/sso.md).
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`update sso_email_domains d set granted_at = now()
    from sso_settings s
    where s.sub_id = d.sub_id
      and d.granted_at is null
      and s.updated_at < (select m.timestamp::timestamptz from kysely_migration m
                          where m.name = '0061_sso_domain_grants')
      and not exists (select 1 from sso_email_domains o where o.domain = d.domain and o.sub_id <> d.sub_id)`.execute(db)
}

// Nothing to undo that can be told apart: a grant made here is like one the operator made.
export async function down(): Promise<void> {}
