import { sql } from 'kysely'
import { expect, it } from 'vitest'
import { migrateToLatest } from '../../src/platform/db/migrate.js'
import { migrateUpTo } from '../support/migrations.js'
import { useTestDatabase } from '../support/use-test-app.js'

const db = useTestDatabase({ migrate: false })

// Recipients who left before the directory flagged departures are not flagged at the first sweep
// after the upgrade: migration 0058 counts their departure as noted.
it('notes the departures of contacts already gone when migration 0058 runs, and only theirs', async () => {
  const k = db.handle.db
  await migrateUpTo(k, '0057_directory')
  await sql`insert into subscriptions (sub_id, name) values ('sub_d', 'd')`.execute(k)
  const contacts: Array<[string, string, string | null]> = [
    ['con_inactive', 'inactive', null],
    ['con_moved', 'active', '2001-01-01'],
    ['con_moving', 'active', '2999-01-01'],
    ['con_here', 'active', null],
  ]
  for (const [id, status, moveOut] of contacts)
    await sql`insert into contacts (contact_id, sub_id, contact_type, name, match_name, status, move_out)
      values (${id}, 'sub_d', 'RECEIVER', ${id}, ${id}, ${status}, ${moveOut})`.execute(k)
  await migrateToLatest(k)
  const { rows } = await sql<{ contact_id: string; noted: boolean }>`
    select contact_id, departure_noted_at is not null as noted from contacts order by contact_id`.execute(k)
  expect(rows).toEqual([
    { contact_id: 'con_here', noted: false },
    { contact_id: 'con_inactive', noted: true },
    { contact_id: 'con_moved', noted: true },
    { contact_id: 'con_moving', noted: false },
  ])
})
