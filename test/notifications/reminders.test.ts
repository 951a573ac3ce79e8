import { expect, it } from 'vitest'
import { api, trackingNumber } from '../support/factories.js'
import { useClient, useTestApp } from '../support/use-test-app.js'
import { useSmtpServer } from './support/smtp.js'

// Reminders as a recipient reads them (issue 25.7): one reminder per arrival email, due its hours
// after that email was sent (not after each parcel arrived), about the email's parcels still
// waiting; an email whose parcels were all collected gets none.
const { smtp, env } = useSmtpServer()
const t = useTestApp(env)
const client = useClient(t)
const MINUTE = 60_000

it('reminds once per arrival email, counted from its sending, of the parcels still waiting', async () => {
  const a = api(t, client)
  const room = await a.mailroom()
  await a.ok('PUT', '/api/v1/notifications/settings', {
    enabled: true,
    arrivalBatchSeconds: 60,
    reminderAfterHours: [1],
    finalNoticeAfterHours: null,
    templates: {},
  })
  const rae = await a.contact('RECEIVER', 'Rae Reminded', { email: 'rae@example.com' })
  const receive = async () => {
    const number = trackingNumber('1ZREMIND')
    const { packageId } = await a.ok('POST', '/api/v1/packages', {
      package: { trackingNumber: number, receiver: { contactId: rae } },
      lastActivity: { status: 'RECEIVED', location: { inboundSiteId: room.shelfId } },
    })
    return { packageId: packageId as string, number }
  }
  const handOver = (packageId: string) =>
    a.ok('PUT', `/api/v1/packages/${packageId}`, {
      package: { givenTo: { contactId: rae } },
      lastActivity: { status: 'DELIVERED' },
    })
  const run = () => t.ctx.notifications.runOnce()
  const reminders = () => smtp.received.filter((m) => m.mail.subject?.startsWith('Reminder'))

  // One arrival email for two parcels, sent a minute after the first arrived.
  const kept = await receive()
  t.clock.advance(30_000)
  const collected = await receive()
  t.clock.advance(31_000)
  expect((await run()).sent).toBe(1)
  // A second arrival email, ten minutes later, for a third parcel.
  t.clock.advance(9 * MINUTE)
  const alone = await receive()
  t.clock.advance(MINUTE)
  expect((await run()).sent).toBe(1)

  // Handed over before the reminders are due: one parcel of the first email, the only one of the second.
  t.clock.advance(20 * MINUTE)
  await handOver(collected.packageId)
  await handOver(alone.packageId)
  await run()
  smtp.clear()

  // An hour after the first parcel arrived, but not after the email was sent: no reminder yet.
  // (The first email left 61 s after the first arrival: now is 1 h 10 s after that arrival.)
  t.clock.advance(29 * MINUTE + 10_000)
  expect((await run()).sent).toBe(0)
  t.clock.advance(MINUTE)
  expect((await run()).sent).toBe(1)
  expect(reminders()).toHaveLength(1)
  const text = reminders()[0]!.mail.text ?? ''
  expect(reminders()[0]!.mail.subject).toMatch(/^Reminder: a parcel is still waiting/)
  expect(text).toContain(kept.number)
  expect(text).not.toContain(collected.number)

  // The second email's parcels are all gone: no reminder of it, now or later.
  t.clock.advance(3 * 60 * MINUTE)
  expect((await run()).sent).toBe(0)
  expect(reminders()).toHaveLength(1)
  const listed = (await api(t, await t.refresh(client)).ok('GET', `/api/v1/notifications?contactId=${rae}`))
    .notifications as Array<{ kind: string; step?: number; packageIds: string[] }>
  expect(listed.filter((n) => n.kind === 'REMINDER').map((n) => [n.step, n.packageIds])).toEqual([
    [1, [kept.packageId]],
  ])
})
