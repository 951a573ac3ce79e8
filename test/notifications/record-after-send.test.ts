import { sql } from 'kysely'
import { expect, it } from 'vitest'
import { api } from '../support/factories.js'
import { useClient, useTestApp } from '../support/use-test-app.js'
import { arrivalsFor } from './support/arrivals.js'
import { useSmtpServer } from './support/smtp.js'

// An email the SMTP server took is recorded as sent, even when the first try to record it fails
// (a database error after the send): it is never sent a second time.
const { smtp, env } = useSmtpServer()
const t = useTestApp(env)
const client = useClient(t)

it('records a sent email as sent when the first record fails, and never sends it again', async () => {
  await arrivalsFor(api(t, client), 1, { name: 'Rory Record', mailbox: 'rory', prefix: '1ZREC' })
  // The first update that records a notification as sent fails, as a lost connection would.
  // A sequence, not a table: its count survives the rollback of the failing transaction.
  await sql`create sequence sent_records`.execute(t.ctx.db)
  await sql`create function fail_first_sent() returns trigger language plpgsql as $$
    begin
      if new.status = 'sent' and old.status = 'pending' then
        if nextval('sent_records') = 1 then raise exception 'connection lost while recording'; end if;
      end if;
      return new;
    end $$`.execute(t.ctx.db)
  await sql`create trigger fail_first_sent before update on notifications
    for each row execute function fail_first_sent()`.execute(t.ctx.db)
  smtp.clear()

  await t.ctx.notifications.runOnce()
  // Later passes, past any lease and retry delay, find nothing to send.
  t.clock.advance(3_600_000)
  await t.ctx.notifications.runOnce()

  expect(smtp.received).toHaveLength(1)
  // The first record failed and the second held.
  expect((await sql<{ n: string }>`select last_value::text as n from sent_records`.execute(t.ctx.db)).rows[0]!.n).toBe(
    '2',
  )
  const rows = await t.ctx.db.selectFrom('notifications').select(['status', 'kind']).execute()
  expect(rows).toEqual([{ status: 'sent', kind: 'ARRIVAL' }])
})
