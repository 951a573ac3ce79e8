import { sql, type Kysely } from 'kysely'

// Frozen once landed: never edit, add a new numbered migration instead.
//
// Single sign-on matches a returning user by the identity provider's own id for them, the
// id_token's (iss, sub) recorded at their first sign-in (OpenID Connect Core §5.7: the only claims
// that identify the end-user stably; an email can change, or pass to someone else). One user has
// one subject per issuer; a subject is one user.
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`create table sso_identities (
    issuer text not null,
    subject text not null,
    user_id text not null references users (user_id) on delete cascade,
    created_at timestamptz not null,
    primary key (issuer, subject))`.execute(db)
  await sql`create unique index sso_identities_user_issuer_key on sso_identities (user_id, issuer)`.execute(db)
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`drop table sso_identities`.execute(db)
}
