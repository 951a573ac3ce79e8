import { sql } from 'kysely'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createContext } from '../../src/app/context.js'
import { TEST_SECRET } from '../support/build-test-app.js'
import type { TestApp } from '../support/build-test-app.js'
import { api, trackingNumber } from '../support/factories.js'
import { useClient, useTestApp } from '../support/use-test-app.js'
import { providerSignature } from '../../src/notifications/model/signature.js'
import { TestMessagesApi } from './sms-servers.js'

// The send marker of a text (issue 29, migration 0075) against what comes after the hand-over: a
// database error once the provider may hold the text, and a resend whose worker stops mid-send.
// Either way the text is never sent twice, and never called sent on an earlier send's word.

const PUBLIC_URL = 'https://mailroom.example.test'
const TOKEN = 'token-789'
const smsSettings = (url: string) => ({
  provider: 'messages',
  url,
  account: 'AC0789',
  secret: TOKEN,
  from: '+15550007777',
  channels: {
    allowed: ['email', 'sms'],
    defaults: { ARRIVAL: ['sms'], REMINDER: ['sms'], FINAL_NOTICE: ['sms'], PICKED_UP: ['sms'] },
  },
  quietHours: null,
})

/** A facility texting arrivals through `provider`, and a way to text one recipient their parcel. */
function useTexts(t: TestApp, provider: TestMessagesApi) {
  const client = useClient(t)
  let phoneN = 0
  let room: Awaited<ReturnType<ReturnType<typeof api>['mailroom']>>
  const fresh = async () => api(t, await t.refresh(client))
  return {
    fresh,
    async setUp() {
      const a = await fresh()
      room = await a.mailroom()
      await a.ok('PUT', '/api/v1/notifications/settings', {
        enabled: true,
        arrivalBatchSeconds: 60,
        reminderAfterHours: [],
        finalNoticeAfterHours: null,
        templates: {},
      })
      await a.ok('PUT', '/api/v1/notifications/sms/settings', smsSettings(provider.url))
    },
    /** A recipient opted in to texts, with one parcel arrived: its text is due once the batch closes. */
    async arrival() {
      const a = await fresh()
      const phone = `+1555040${++phoneN}000`
      const id = await a.contact('RECEIVER', `Mara ${phoneN}`, { phone })
      await a.ok('PUT', `/api/v1/notifications/recipients/${id}/channels`, {
        kinds: {},
        sms: { optedIn: true, source: 'desk form' },
      })
      const packageId = (
        await a.ok('POST', '/api/v1/packages', {
          package: {
            trackingNumber: trackingNumber('1ZMRK'),
            sender: { contactId: room.senderId },
            receiver: { contactId: id },
          },
          lastActivity: { status: 'RECEIVED', location: { inboundSiteId: room.shelfId } },
        })
      ).packageId as string
      t.clock.advance(61_000)
      return { phone, packageId }
    },
    /** The provider's delivery receipt, signed, to the status webhook. */
    async receipt(messageSid: string, status: string) {
      const form = { MessageSid: messageSid, MessageStatus: status }
      const url = `/notifications/sms/${client.subId}/status`
      const res = await t.inject({
        method: 'POST',
        url,
        headers: {
          'content-type': 'application/x-www-form-urlencoded',
          'x-twilio-signature': providerSignature(TOKEN, `${PUBLIC_URL}${url}`, form),
        },
        payload: new URLSearchParams(form).toString(),
      })
      expect(res.statusCode, res.body).toBeLessThan(300)
    },
    async text(packageId: string) {
      const a = await fresh()
      const rows = (await a.ok('GET', `/api/v1/notifications?packageId=${packageId}`)).notifications as Array<
        Record<string, unknown>
      >
      expect(rows).toHaveLength(1)
      return rows[0]!
    },
  }
}

describe('a database error after the provider may have the text', () => {
  const provider = new TestMessagesApi()
  // The provider answers past the send timeout: the worker cannot know whether it took the text.
  const env: Record<string, string> = {
    MAILROOM_PUBLIC_URL: PUBLIC_URL,
    SMS_ALLOW_CIDRS: '127.0.0.0/8',
    SMS_ALLOW_HTTP: 'true',
    NOTIFY_SEND_TIMEOUT_SECONDS: '1',
  }
  beforeAll(() => provider.start())
  afterAll(() => provider.close())
  const t = useTestApp(env)
  const texts = useTexts(t, provider)
  beforeAll(() => texts.setUp())

  it('keeps the send marker: the text is settled unconfirmed on its next claim, never sent again', async () => {
    const { phone, packageId } = await texts.arrival()
    provider.hold = () => new Promise((resolve) => setTimeout(resolve, 1_500))
    // The first update that records the text's outcome fails, as a statement timeout would.
    // A sequence, not a table: its count survives the rollback of the failing transaction.
    await sql`create sequence sms_sent_records`.execute(t.ctx.db)
    await sql`create function fail_first_sms_sent() returns trigger language plpgsql as $$
      begin
        if new.channel = 'sms' and new.status in ('sent', 'unconfirmed') and old.status = 'pending' then
          if nextval('sms_sent_records') = 1 then raise exception 'canceling statement due to statement timeout'; end if;
        end if;
        return new;
      end $$`.execute(t.ctx.db)
    await sql`create trigger fail_first_sms_sent before update on notifications
      for each row execute function fail_first_sms_sent()`.execute(t.ctx.db)
    try {
      await t.ctx.notifications.runOnce()
    } finally {
      provider.hold = undefined
    }
    expect(provider.requests.map((r) => r.form.To)).toEqual([phone])
    // The record of it failed: pending again, with why.
    const failed = await texts.text(packageId)
    expect(failed).toMatchObject({ channel: 'sms', status: 'pending', attempts: 1 })
    expect(failed.lastError).toContain('statement timeout')

    // Past any retry delay: claimed again, and settled on its marker rather than sent.
    t.clock.advance(6 * 3_600_000)
    await t.ctx.notifications.runOnce()
    await t.ctx.notifications.runOnce()
    expect(provider.requests).toHaveLength(1)
    const settled = await texts.text(packageId)
    expect(settled).toMatchObject({ channel: 'sms', status: 'unconfirmed', attempts: 2, to: phone })
    expect(settled.lastError).toContain('not sent again')
  })
})

describe('a resent text whose worker stops while the provider holds it', () => {
  const provider = new TestMessagesApi()
  const env: Record<string, string> = {
    MAILROOM_PUBLIC_URL: PUBLIC_URL,
    SMS_ALLOW_CIDRS: '127.0.0.0/8',
    SMS_ALLOW_HTTP: 'true',
  }
  beforeAll(() => provider.start())
  afterAll(() => provider.close())
  const t = useTestApp(env)
  const texts = useTexts(t, provider)
  beforeAll(() => texts.setUp())

  it('is unconfirmed, not sent on the word of the earlier send', async () => {
    const { phone, packageId } = await texts.arrival()
    await t.ctx.notifications.runOnce()
    const first = await texts.text(packageId)
    expect(first).toMatchObject({ status: 'sent', attempts: 1 })
    const sid = (
      await t.ctx.db
        .selectFrom('notifications')
        .select('provider_message_id')
        .where('notification_id', '=', first.notificationId as string)
        .executeTakeFirstOrThrow()
    ).provider_message_id
    expect(sid).toMatch(/^SM/)
    await texts.receipt(sid!, 'delivered')
    expect(await texts.text(packageId)).toMatchObject({ deliveryStatus: 'delivered' })

    // Resent: the earlier send's id and receipt are no word on this one.
    const a = await texts.fresh()
    const resent = await a.ok('POST', `/api/v1/notifications/${first.notificationId as string}/resend`, undefined, 200)
    expect(resent).toMatchObject({ status: 'pending' })
    expect(resent).not.toHaveProperty('deliveryStatus')

    // The provider holds the resend; its worker is as good as dead (it never answers in time for the
    // lease). Another process claims the text once the lease ran out.
    let release: () => void = () => {}
    const held = new Promise<void>((resolve) => (release = resolve))
    provider.hold = () => held
    const stuck = t.ctx.notifications.runOnce()
    const other = createContext({
      config: t.config,
      database: t.ctx.database,
      masterSecret: TEST_SECRET,
      clock: t.clock,
    })
    try {
      await expect.poll(() => provider.requests.length, { timeout: 10_000, interval: 50 }).toBe(2)
      t.clock.advance(3_600_000)
      await other.notifications.runOnce()
      expect(provider.requests).toHaveLength(2)
      const reclaimed = await texts.text(packageId)
      expect(reclaimed).toMatchObject({ channel: 'sms', status: 'unconfirmed', attempts: 3, to: phone })
      expect(reclaimed.lastError).toContain('not sent again')
    } finally {
      provider.hold = undefined
      release()
      await stuck
      other.notifications.close()
    }
    // The stopped worker's answer came too late to settle it: still unconfirmed, sent to the provider twice in all.
    expect(await texts.text(packageId)).toMatchObject({ status: 'unconfirmed' })
    expect(provider.requests.map((r) => r.form.To)).toEqual([phone, phone])
  })
})
