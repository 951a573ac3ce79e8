import { sql } from 'kysely'
import { expect, it } from 'vitest'
import { migrateToLatest } from '../../src/platform/db/migrate.js'
import { migrateUpTo } from '../support/migrations.js'
import { useTestDatabase } from '../support/use-test-app.js'

const db = useTestDatabase({ migrate: false })

// Sessions open when migration 0030 runs keep working and get a public id each, distinct and
// unrelated to their cookie hash.
it('gives the sessions open before migration 0030 a public id each', async () => {
  const k = db.handle.db
  await migrateUpTo(k, '0024_users')
  await sql`insert into subscriptions (sub_id, name) values ('sub_m', 'm')`.execute(k)
  await sql`insert into users (user_id, sub_id, email, role, password_hash, created_at, updated_at)
    values ('usr_m', 'sub_m', 'm@example.com', 'clerk', 'x', now(), now())`.execute(k)
  for (const hash of ['a'.repeat(64), 'b'.repeat(64)])
    await sql`insert into user_sessions (session_hash, user_id, csrf_token, created_at, last_seen_at, expires_at)
      values (${hash}, 'usr_m', 'csrf', now(), now(), now() + interval '1 hour')`.execute(k)
  await migrateToLatest(k)
  const { rows } = await sql<{
    session_hash: string
    session_id: string
    user_agent: string | null
  }>`select session_hash, session_id, user_agent from user_sessions order by session_hash`.execute(k)
  expect(rows).toHaveLength(2)
  expect(new Set(rows.map((r) => r.session_id)).size).toBe(2)
  for (const r of rows) {
    expect(r.session_id).toMatch(/^ses_[0-9a-f]{32}$/)
    expect(r.session_hash).not.toContain(r.session_id.slice(4))
    expect(r.user_agent).toBeNull()
  }
})
