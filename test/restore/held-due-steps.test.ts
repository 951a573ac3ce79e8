import { sql } from 'kysely'
import { expect, it } from 'vitest'
import { decideHeld, listHeld, markRestored } from '../../src/app/restore/held-work.js'
import { api, trackingNumber } from '../support/factories.js'
import { useClient, useTestApp } from '../support/use-test-app.js'
import { useSmtpServer } from '../notifications/support/smtp.js'

// Issue 31.1, the scheduled steps: a reminder that became due between the backup and the restore
// was sent by the original. The restored copy writes it held (the operator resends or drops it),
// while a reminder that becomes due after the restore is sent as usual.
const { smtp, env } = useSmtpServer()
const t = useTestApp(env)
const client = useClient(t)
const MINUTE = 60_000

it('holds a reminder that became due before the restore, and sends one due after it', async () => {
  const a = api(t, client)
  const db = t.ctx.db
  const room = await a.mailroom()
  await a.ok('PUT', '/api/v1/notifications/settings', {
    enabled: true,
    arrivalBatchSeconds: 60,
    reminderAfterHours: [1],
    finalNoticeAfterHours: null,
    templates: {},
  })
  const receive = async (contactId: string) =>
    a.ok('POST', '/api/v1/packages', {
      package: { trackingNumber: trackingNumber('1ZSTEP'), receiver: { contactId } },
      lastActivity: { status: 'RECEIVED', location: { inboundSiteId: room.shelfId } },
    })
  const run = () => t.ctx.notifications.runOnce()
  const remindersTo = () =>
    smtp.received.filter((m) => m.mail.subject?.startsWith('Reminder')).map((m) => JSON.stringify(m.mail.to))

  // Early's arrival email leaves now: its reminder is due in an hour. Late's leaves 40 minutes later.
  const early = await a.contact('RECEIVER', 'Early', { email: 'early@example.com' })
  await receive(early)
  t.clock.advance(61_000)
  expect((await run()).sent).toBe(1)
  t.clock.advance(40 * MINUTE)
  const late = await a.contact('RECEIVER', 'Late', { email: 'late@example.com' })
  await receive(late)
  t.clock.advance(61_000)
  expect((await run()).sent).toBe(1)
  // The backup was taken here; the original ran on and sent Early's reminder; the restore is now,
  // 69 minutes after Early's email and 28 after Late's, before the restored copy's worker ever ran.
  t.clock.advance(28 * MINUTE)
  smtp.clear()
  const mark = await markRestored(db, { now: t.clock.now(), holdAfterSeconds: 15 * 60, source: 'mark' })
  expect(mark.held.emails).toBe(0)

  // Early's reminder is written held: not due, remembered for the operator; never sent by the worker.
  await run()
  await run()
  expect(remindersTo()).toEqual([])
  const { rows } = await sql<{ next: Date; held: string | null }>`
    select n.next_attempt_at as next, h.restore_id as held from notifications n
    left join held_work h on h.item_type = 'notification' and h.item_id = n.notification_id
    where n.kind = 'REMINDER' and n.contact_id = ${early}`.execute(db)
  expect(rows).toEqual([{ next: new Date('9999-12-31T00:00:00Z'), held: mark.restoreId }])
  expect(await listHeld(db)).toMatchObject({ held: { emails: { count: 1 } } })

  // Late's reminder becomes due after the restore: sent as usual, once.
  t.clock.advance(33 * MINUTE)
  await run()
  expect(remindersTo()).toEqual([expect.stringContaining('late@example.com')])

  // The operator resends: Early is reminded once.
  expect(await decideHeld(db, 'emails', 'resend', t.clock.now())).toBe(1)
  await run()
  await run()
  expect(remindersTo()).toHaveLength(2)
  expect(remindersTo().filter((x) => x.includes('early@example.com'))).toHaveLength(1)
})
