import { sql, type Kysely } from 'kysely'

// Frozen once landed: never edit, add a new numbered migration instead.
//
// An email domain claimed for single sign-on is active only once the installation's operator
// grants it (`mailroom sso grant`): a subscription's admin proves nothing by typing a domain, and a
// first-come claim let anyone take gmail.com or another organisation's domain. So any number of
// subscriptions may claim a domain (pending), and at most one holds it granted. Claims made before
// this migration are pending: none was ever proven.
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`alter table sso_email_domains drop constraint sso_email_domains_pkey`.execute(db)
  await sql`alter table sso_email_domains add primary key (domain, sub_id)`.execute(db)
  await sql`alter table sso_email_domains add column granted_at timestamptz`.execute(db)
  await sql`create unique index sso_email_domains_granted_key on sso_email_domains (domain) where granted_at is not null`.execute(
    db,
  )
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`drop index sso_email_domains_granted_key`.execute(db)
  // One claim per domain again: the granted one, else the oldest subscription's.
  await sql`delete from sso_email_domains d using sso_email_domains o
    where d.domain = o.domain and d.sub_id <> o.sub_id
      and (o.granted_at is not null or (d.granted_at is null and o.sub_id < d.sub_id))`.execute(db)
  await sql`alter table sso_email_domains drop column granted_at`.execute(db)
  await sql`alter table sso_email_domains drop constraint sso_email_domains_pkey`.execute(db)
  await sql`alter table sso_email_domains add primary key (domain)`.execute(db)
}
