import { expect, it } from 'vitest'
import { api } from '../support/factories.js'
import { useClient, useTestApp } from '../support/use-test-app.js'
import { arrivalsFor } from './support/arrivals.js'
import { useSmtpServer } from './support/smtp.js'

// A worker claims no more than it sends at once (its concurrency, ten, and as many SMTP
// connections): no claimed email waits in line, and one another worker took is never sent here.
const { smtp, env } = useSmtpServer()
const t = useTestApp(env)
const client = useClient(t)

it('claims only what it sends at once, and sends nothing another worker took', async () => {
  const a = api(t, client)
  const count = 12
  await arrivalsFor(a, count, { name: 'Lena Lease', mailbox: 'lena', prefix: '1ZLEASE' })
  // The server holds every message until released: the first sends stay in flight.
  let release!: () => void
  const gate = new Promise<void>((resolve) => (release = resolve))
  smtp.hold = () => gate
  smtp.clear()

  const pass = t.ctx.notifications.runOnce()
  try {
    await expect.poll(() => smtp.dataStarted, { timeout: 5_000 }).toBe(10)
    // Ten in flight: the other two were never claimed (no batch beyond the concurrency).
    const leased = await t.ctx.db
      .selectFrom('notifications')
      .select('notification_id')
      .where('status', '=', 'pending')
      .where('locked_by', 'is not', null)
      .execute()
    expect(leased).toHaveLength(10)
    // Meanwhile the leases ran out and another worker claimed every row (its claim counts an attempt).
    await t.ctx.db
      .updateTable('notifications')
      .set((eb) => ({
        locked_by: 'another-worker',
        locked_until: new Date(t.clock.now().getTime() + 60_000),
        attempts: eb('attempts', '+', 1),
      }))
      .where('status', '=', 'pending')
      .execute()
  } finally {
    release()
  }
  const step = await pass
  smtp.hold = undefined
  // The ten in flight reached the server but are the other worker's to record; the two it holds
  // were never started here.
  expect(step.sent).toBe(0)
  expect(smtp.received).toHaveLength(10)
  expect(smtp.dataStarted).toBe(10)
  const rows = await t.ctx.db.selectFrom('notifications').select(['status', 'locked_by']).execute()
  expect(rows.filter((r) => r.status === 'pending' && r.locked_by === 'another-worker')).toHaveLength(count)
})
