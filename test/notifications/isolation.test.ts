import { sql } from 'kysely'
import { expect, it } from 'vitest'
import type { TestClient } from '../support/build-test-app.js'
import { api, trackingNumber } from '../support/factories.js'
import { useTestApp } from '../support/use-test-app.js'
import { IMMEDIATE } from './support/arrivals.js'
import { useSmtpServer } from './support/smtp.js'

// One tenant's bad row never stops the others' notifications: the outbox consumer handles a read
// that fails in parts (by subscription, then by write) and leaves only the failing write behind.
const { smtp, env } = useSmtpServer()
const t = useTestApp(env)

const rooms = new Map<string, { shelfId: string }>()
async function roomOf(c: TestClient) {
  let room = rooms.get(c.subId)
  if (!room) {
    room = await api(t, c).mailroom()
    await api(t, c).ok('PUT', '/api/v1/notifications/settings', IMMEDIATE)
    rooms.set(c.subId, room)
  }
  return room
}

async function receiveFor(c: TestClient, name: string, count: number) {
  const a = api(t, c)
  const room = await roomOf(c)
  const contactId = await a.contact('RECEIVER', name, { email: `${name.toLowerCase().replace(/\W/g, '')}@example.com` })
  for (let i = 0; i < count; i++)
    await a.ok('POST', '/api/v1/packages', {
      package: { trackingNumber: trackingNumber('1ZISO'), receiver: { contactId } },
      lastActivity: { status: 'RECEIVED', location: { inboundSiteId: room.shelfId } },
    })
  return contactId
}

const unconsumed = async (subId: string) =>
  Number(
    (
      await sql<{ n: number }>`select count(*)::int as n from package_events
        where sub_id = ${subId} and notified_at is null and event_name = 'Acceptance'`.execute(t.ctx.db)
    ).rows[0]!.n,
  )

it('leaves a write whose notifications cannot be written in the outbox, and notifies every other write', async () => {
  const bad = await t.newClient()
  const good = await t.newClient()
  const other = await t.newClient()
  // A database refusal only one contact's rows meet (a constraint, a trigger, a bad value).
  const badContact = await receiveFor(bad, 'Bea Broken', 0)
  await sql
    .raw(
      `create function refuse_contact() returns trigger language plpgsql as $$
       begin if new.contact_id = '${badContact}' then raise exception 'refused'; end if; return new; end $$`,
    )
    .execute(t.ctx.db)
  await sql
    .raw('create trigger refuse_contact before insert on notifications for each row execute function refuse_contact()')
    .execute(t.ctx.db)
  try {
    // The bad subscription also has a good recipient: only the bad contact's write is held.
    const a = api(t, bad)
    const room = await roomOf(bad)
    await a.ok('POST', '/api/v1/packages', {
      package: { trackingNumber: trackingNumber('1ZISO'), receiver: { contactId: badContact } },
      lastActivity: { status: 'RECEIVED', location: { inboundSiteId: room.shelfId } },
    })
    await receiveFor(bad, 'Fine Neighbour', 2)
    await receiveFor(good, 'Gus Good', 3)
    await receiveFor(other, 'Olga Other', 1)
    smtp.clear()
    await t.ctx.notifications.runOnce()
    await t.ctx.notifications.runOnce()
    const to = (address: string) => smtp.received.filter((m) => JSON.stringify(m.mail.to).includes(address))
    expect(to('gusgood@example.com')).toHaveLength(1)
    expect(to('olgaother@example.com')).toHaveLength(1)
    expect(to('fineneighbour@example.com')).toHaveLength(1)
    expect(to('beabroken@example.com')).toHaveLength(0)
    expect(await unconsumed(bad.subId)).toBe(1)
    expect(await unconsumed(good.subId)).toBe(0)
  } finally {
    await sql.raw('drop trigger refuse_contact on notifications').execute(t.ctx.db)
    await sql.raw('drop function refuse_contact()').execute(t.ctx.db)
  }
  // Once the cause is gone, the held write is notified, once.
  await t.ctx.notifications.runOnce()
  await t.ctx.notifications.runOnce()
  expect(await unconsumed(bad.subId)).toBe(0)
  const mails = await smtp.waitFor(4)
  expect(mails.filter((m) => JSON.stringify(m.mail.to).includes('beabroken@example.com'))).toHaveLength(1)
  expect(smtp.received).toHaveLength(4)
}, 60_000)
