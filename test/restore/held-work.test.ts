import { sql } from 'kysely'
import { expect, it } from 'vitest'
import { decideHeld, listHeld, markRestored } from '../../src/app/restore/held-work.js'
import { api, trackingNumber } from '../support/factories.js'
import { useClient, useTestApp } from '../support/use-test-app.js'
import { IMMEDIATE } from '../notifications/support/arrivals.js'
import { useSmtpServer } from '../notifications/support/smtp.js'

// Issue 31.1, the rule itself on both engines: a restore holds the outbound work pending in it
// that is older than the threshold (rows, and outbox events not consumed yet), never the younger
// work; the operator's resend sends it, once; a drop never sends it.
const { smtp, env } = useSmtpServer()
const t = useTestApp(env)
const client = useClient(t)
const HOUR = 3600_000

it('holds what is older than the threshold, sends the rest, and resends or drops per kind', async () => {
  const a = api(t, client)
  const db = t.ctx.db
  const room = await a.mailroom()
  const receive = async (contactId: string) =>
    (
      await a.ok('POST', '/api/v1/packages', {
        package: { trackingNumber: trackingNumber('1ZHELD'), receiver: { contactId } },
        lastActivity: { status: 'RECEIVED', location: { inboundSiteId: room.shelfId } },
      })
    ).packageId as string
  const ago = (ms: number) => new Date(t.clock.now().getTime() - ms)

  // An email whose batch opened an hour ago and is still pending (its batch closes in two hours).
  await a.ok('PUT', '/api/v1/notifications/settings', { ...IMMEDIATE, arrivalBatchSeconds: 7200 })
  const rowOld = await a.contact('RECEIVER', 'Row Old', { email: 'row-old@example.com' })
  await receive(rowOld)
  await t.ctx.notifications.runOnce()
  await sql`update notifications set created_at = ${ago(HOUR)}::timestamptz where contact_id = ${rowOld}`.execute(db)
  // An arrival an hour old that the notifications had not read yet, and a young one.
  await a.ok('PUT', '/api/v1/notifications/settings', IMMEDIATE)
  const eventOld = await a.contact('RECEIVER', 'Event Old', { email: 'event-old@example.com' })
  const young = await a.contact('RECEIVER', 'Young', { email: 'young@example.com' })
  const oldPackage = await receive(eventOld)
  await receive(young)
  await sql`update package_events set occurred_at = ${ago(HOUR)}::timestamptz where package_id = ${oldPackage}`.execute(
    db,
  )
  const oldEvents = (
    await sql<{ n: number }>`select count(*)::int as n from package_events
      where package_id = ${oldPackage} and dispatched_at is null`.execute(db)
  ).rows[0]!.n
  expect(oldEvents).toBeGreaterThan(0)

  const mark = await markRestored(db, { now: t.clock.now(), holdAfterSeconds: 15 * 60, source: 'mark' })
  expect(mark.held).toEqual({ emails: 2, webhooks: oldEvents })
  expect(await listHeld(db)).toMatchObject({
    restore: { restoreId: mark.restoreId, holdAfterMinutes: 15, snapshotAt: null },
    held: { emails: { count: 2 }, webhooks: { count: oldEvents } },
  })

  // Held means not due and remembered: the old email waits for 9999, not for its batch to close.
  const { rows: rowOldHeld } = await sql<{ next: Date; held: boolean }>`
    select n.next_attempt_at as next, h.item_id is not null as held from notifications n
    left join held_work h on h.item_type = 'notification' and h.item_id = n.notification_id
    where n.contact_id = ${rowOld}`.execute(db)
  expect(rowOldHeld).toEqual([{ next: new Date('9999-12-31T00:00:00Z'), held: true }])

  // The young arrival is emailed; the held ones are not, however often the worker runs, even once
  // the old email's batch would have closed.
  t.clock.advance(3 * HOUR)
  smtp.clear()
  await t.ctx.notifications.runOnce()
  await t.ctx.notifications.runOnce()
  expect(smtp.received.map((m) => JSON.stringify(m.mail.to))).toEqual([expect.stringContaining('young@example.com')])

  expect(await decideHeld(db, 'emails', 'resend', t.clock.now())).toBe(2)
  await t.ctx.notifications.runOnce()
  await t.ctx.notifications.runOnce()
  const to = smtp.received.map((m) => JSON.stringify(m.mail.to))
  expect(to).toHaveLength(3)
  for (const address of ['young', 'row-old', 'event-old'])
    expect(to.filter((x) => x.includes(`${address}@example.com`))).toHaveLength(1)

  expect(await decideHeld(db, 'webhooks', 'drop', t.clock.now())).toBe(oldEvents)
  expect(await listHeld(db)).toMatchObject({ held: { emails: { count: 0 }, webhooks: { count: 0 } } })
  // Decided once: a second decision finds nothing.
  expect(await decideHeld(db, 'emails', 'drop', t.clock.now())).toBe(0)
})

it('drops held emails as failed, with the reason, never sent', async () => {
  const a = api(t, client)
  const db = t.ctx.db
  await a.ok('PUT', '/api/v1/notifications/settings', { ...IMMEDIATE, arrivalBatchSeconds: 7200 })
  const c = await a.contact('RECEIVER', 'Dropped', { email: 'dropped@example.com' })
  await a.ok('POST', '/api/v1/packages', {
    package: { trackingNumber: trackingNumber('1ZDROP'), receiver: { contactId: c } },
  })
  await t.ctx.notifications.runOnce()
  await sql`update notifications set created_at = created_at - interval '1 hour' where contact_id = ${c}`.execute(db)
  const mark = await markRestored(db, { now: t.clock.now(), holdAfterSeconds: 60, source: 'mark' })
  expect(mark.held.emails).toBe(1)
  expect(await decideHeld(db, 'emails', 'drop', t.clock.now())).toBe(1)
  smtp.clear()
  t.clock.advance(3 * 3600_000)
  await t.ctx.notifications.runOnce()
  expect(smtp.received).toHaveLength(0)
  const listed = (await api(t, await t.refresh(client)).ok('GET', `/api/v1/notifications?contactId=${c}`))
    .notifications as Array<Record<string, unknown>>
  expect(listed).toEqual([
    expect.objectContaining({
      status: 'failed',
      lastError: expect.stringContaining('dropped by an operator after a restore'),
    }),
  ])
})
