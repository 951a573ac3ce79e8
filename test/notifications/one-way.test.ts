import { expect, it } from 'vitest'
import { api, trackingNumber } from '../support/factories.js'
import { useClient, useTestApp } from '../support/use-test-app.js'
import { IMMEDIATE } from './support/arrivals.js'
import { useSmtpServer } from './support/smtp.js'

// Events flow one way (issue 24.2): a package write only writes its events; the notifications find
// them in the outbox when their worker runs, however long after. Nothing is written for them by
// the write, nothing is lost while no worker runs, and each arrival is emailed once.
const { smtp, env } = useSmtpServer()
const t = useTestApp(env)
const client = useClient(t)

it('emails arrivals and a receipt written while the worker was stopped once it starts, each once', async () => {
  const a = api(t, client)
  const room = await a.mailroom()
  await a.ok('PUT', '/api/v1/notifications/settings', IMMEDIATE)
  const ann = await a.contact('RECEIVER', 'Ann Outbox', { email: 'ann@example.com' })
  const bob = await a.contact('RECEIVER', 'Bob Outbox', { email: 'bob@example.com' })
  const receive = async (contactId: string) =>
    (
      await a.ok('POST', '/api/v1/packages', {
        package: { trackingNumber: trackingNumber('1ZONEWAY'), receiver: { contactId } },
        lastActivity: { status: 'RECEIVED', location: { inboundSiteId: room.shelfId } },
      })
    ).packageId as string
  smtp.clear()

  // No worker runs: the writes leave their events in the outbox and nothing else.
  const anns = [await receive(ann), await receive(ann)]
  const bobsParcels = [await receive(bob)]
  const handed = await receive(bob)
  await a.ok('PUT', `/api/v1/packages/${handed}`, {
    package: { givenTo: { contactId: bob } },
    lastActivity: { status: 'DELIVERED' },
  })
  expect((await a.ok('GET', '/api/v1/notifications')).notifications).toEqual([])

  const stop = t.ctx.notifications.start()
  try {
    const mails = await smtp.waitFor(3)
    const to = (address: string) => mails.filter((m) => m.mail.to && JSON.stringify(m.mail.to).includes(address))
    // Ann: one arrival email with both parcels. Bob: one arrival email (the parcel handed over before
    // it left is not in it) and the receipt of the hand-over.
    expect(to('ann@example.com')).toHaveLength(1)
    expect(to('ann@example.com')[0]!.mail.subject).toContain('2 parcels')
    const bobs = to('bob@example.com').map((m) => m.mail.subject ?? '')
    expect(bobs.sort()).toEqual([
      expect.stringMatching(/^A parcel is waiting for you at /),
      'Your parcel was collected',
    ])
  } finally {
    await stop()
  }
  // Another pass, and a worker started again, find nothing left to tell.
  expect((await t.ctx.notifications.runOnce()).sent).toBe(0)
  expect(smtp.received).toHaveLength(3)
  const listed = (await a.ok('GET', '/api/v1/notifications')).notifications as Array<{
    kind: string
    status: string
    packageIds: string[]
  }>
  expect(listed.map((n) => [n.kind, n.status, [...n.packageIds].sort()]).sort()).toEqual(
    [
      ['ARRIVAL', 'sent', [...anns].sort()],
      ['ARRIVAL', 'sent', [...bobsParcels, handed].sort()],
      ['PICKED_UP', 'sent', [handed]],
    ].sort(),
  )
})
