import { sql } from 'kysely'
import { expect, it } from 'vitest'
import { migrateToLatest } from '../../src/platform/db/migrate.js'
import { migrateUpTo } from '../support/migrations.js'
import { useTestDatabase } from '../support/use-test-app.js'

const db = useTestDatabase({ migrate: false })

// Upgrading past 0061 (claims need the operator's grant) does not turn single sign-on off where a
// domain was claimed before it and still by nobody else: migration 0067 keeps that claim in force.
it('keeps in force the claims made before grants existed that are still alone, and only those', async () => {
  const k = db.handle.db
  await migrateUpTo(k, '0060_console_sso')
  const settings = (subId: string, at: string) =>
    sql`insert into sso_settings (sub_id, enabled, provision_users, default_role, require_verified_email,
          password_sign_in, created_at, updated_at)
        values (${subId}, true, false, 'clerk', true, true, ${at}, ${at})`.execute(k)
  for (const s of ['sub_a', 'sub_b', 'sub_c'])
    await sql`insert into subscriptions (sub_id, name) values (${s}, ${s})`.execute(k)
  await settings('sub_a', '2026-01-01T00:00:00Z')
  await settings('sub_b', '2026-01-01T00:00:00Z')
  // One claim per domain before 0061 (its primary key): first come, in force.
  await sql`insert into sso_email_domains (domain, sub_id) values
    ('alone.example', 'sub_a'), ('contested.example', 'sub_b')`.execute(k)
  await migrateUpTo(k, '0061_sso_domain_grants')
  // Since 0061: another subscription claims sub_b's domain, and a new one of its own.
  await settings('sub_c', new Date(Date.now() + 60_000).toISOString())
  await sql`insert into sso_email_domains (domain, sub_id) values
    ('contested.example', 'sub_c'), ('late.example', 'sub_c')`.execute(k)
  await migrateToLatest(k)
  const { rows } = await sql<{ domain: string; sub_id: string; granted: boolean }>`
    select domain, sub_id, granted_at is not null as granted from sso_email_domains order by domain, sub_id`.execute(k)
  expect(rows).toEqual([
    { domain: 'alone.example', sub_id: 'sub_a', granted: true },
    { domain: 'contested.example', sub_id: 'sub_b', granted: false },
    { domain: 'contested.example', sub_id: 'sub_c', granted: false },
    { domain: 'late.example', sub_id: 'sub_c', granted: false },
  ])
})
