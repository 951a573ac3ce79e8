import { describe, expect, it } from 'vitest'
import { providerSignature } from '../../src/notifications/model/signature.js'
import { PUBLIC_URL, TOKEN, useSmsApp } from './sms-app.js'

describe('texts through a Messages API provider (a real HTTP server speaking its shape)', () => {
  // The settings are this file's to save: its first test reads their defaults.
  const s = useSmsApp({}, { configured: false })
  const { t, client, smtp, provider, smsSettings } = s
  const list = (query: string) => s.list(query)
  const texter = (arrival: string[], name?: string) => s.texter(arrival, name)
  const arriveAndSend = (receiverId: string, n = 1) => s.arriveAllAndSend(receiverId, n)
  const post = (kind: 'inbound' | 'status', form: Record<string, string>, signature?: string) =>
    t.inject({
      method: 'POST',
      url: `/notifications/sms/${client.subId}/${kind}`,
      headers: {
        'content-type': 'application/x-www-form-urlencoded',
        'x-twilio-signature':
          signature ?? providerSignature(TOKEN, `${PUBLIC_URL}/notifications/sms/${client.subId}/${kind}`, form),
      },
      payload: new URLSearchParams(form).toString(),
    })

  it('answers the defaults, refuses incomplete settings naming the field, keeps the secret write-only', async () => {
    expect(await s.a.ok('GET', '/api/v1/notifications/sms/settings')).toMatchObject({
      provider: 'none',
      secretSet: false,
      channels: { allowed: ['email'] },
      quietHours: null,
    })
    const bad = async (body: unknown) => {
      const res = await s.a.call('PUT', '/api/v1/notifications/sms/settings', body)
      expect(res.statusCode, res.body).toBe(400)
      return (res.json().errors as Array<{ additionalParameters: string }>).map((e) => e.additionalParameters)
    }
    const { secret: _s, url: _u, ...without } = smsSettings()
    expect(await bad(without)).toEqual(expect.arrayContaining(['url', 'secret']))
    expect(await bad(smsSettings({ url: 'ftp://example.com' }))).toEqual(['url'])
    // A private address hidden where parsers disagree on the host.
    expect(await bad(smsSettings({ url: 'http://127.0.0.1\\@sms.example.com/' }))).toEqual(['url'])
    expect(await bad(smsSettings({ url: 'http://127.0.0.1%2f@sms.example.com/' }))).toEqual(['url'])
    expect(
      await bad(
        smsSettings({
          channels: {
            allowed: ['email'],
            defaults: { ARRIVAL: ['sms'], REMINDER: [], FINAL_NOTICE: [], PICKED_UP: [] },
          },
        }),
      ),
    ).toEqual(['channels.defaults.ARRIVAL'])
    expect(await bad(smsSettings({ quietHours: { start: '25:00', end: '08:00' } }))).toContain('quietHours.start')
    const saved = await s.a.ok('PUT', '/api/v1/notifications/sms/settings', smsSettings())
    expect(saved).toMatchObject({ provider: 'messages', secretSet: true, account: 'AC0123' })
    expect(saved).not.toHaveProperty('secret')
    expect(saved.inboundUrl).toBe(`${PUBLIC_URL}/notifications/sms/${client.subId}/inbound`)
    // The secret kept when absent.
    const { secret: _again, ...keep } = smsSettings()
    expect(await s.a.ok('PUT', '/api/v1/notifications/sms/settings', keep)).toMatchObject({ secretSet: true })
  })

  it('records opt-in with its time and source, and refuses an opt-in without a source', async () => {
    const id = await s.a.contact('RECEIVER', 'Olga Optin', { phone: '+15550101000' })
    const res = await s.a.call('PUT', `/api/v1/notifications/recipients/${id}/channels`, {
      kinds: {},
      sms: { optedIn: true },
    })
    expect(res.statusCode).toBe(400)
    expect(res.json().errors[0].additionalParameters).toBe('sms.source')
    const got = await s.a.ok('PUT', `/api/v1/notifications/recipients/${id}/channels`, {
      kinds: { ARRIVAL: ['sms'] },
      sms: { optedIn: true, source: 'signed form at the desk' },
    })
    expect(got).toMatchObject({
      contactId: id,
      kinds: { ARRIVAL: ['sms'] },
      sms: { optedIn: true, source: 'signed form at the desk', phone: '+15550101000', stopped: false },
    })
    expect(got.sms.optedInAt).toBe(t.clock.now().toISOString())
    expect((await s.a.call('GET', '/api/v1/notifications/recipients/nosuchcontact/channels')).statusCode).toBe(404)
  })

  it('texts one message per arrival batch, pickup code first then the count, and never again; the list and the package events show it', async () => {
    const r = await texter(['sms'])
    provider.clear()
    smtp.clear()
    const [p1, p2] = await arriveAndSend(r.id, 2)
    expect(provider.requests).toHaveLength(1)
    const req = provider.requests[0]!
    expect(req.path).toBe('/2010-04-01/Accounts/AC0123/Messages.json')
    expect(req.authorization).toBe(`Basic ${Buffer.from(`AC0123:${TOKEN}`).toString('base64')}`)
    expect(req.form).toMatchObject({ To: r.phone, From: '+15550009999' })
    expect(req.form.StatusCallback).toBe(`${PUBLIC_URL}/notifications/sms/${client.subId}/status`)
    expect(req.form.Body).toMatch(
      /^Pickup code \w+\. 2 parcels arrived for Tex \d+ at HQ \d+, Building A\. Reply STOP to opt out\.$/,
    )
    expect(smtp.received).toHaveLength(0)
    await t.ctx.notifications.runOnce()
    t.clock.advance(3_600_000)
    await t.ctx.notifications.runOnce()
    expect(provider.requests).toHaveLength(1)
    const [n] = await list(`packageId=${p1}`)
    expect(n).toMatchObject({ kind: 'ARRIVAL', channel: 'sms', to: r.phone, status: 'sent', attempts: 1 })
    expect(n!.packageIds).toEqual([p1, p2])
    const events = await t.ctx.db
      .selectFrom('package_events')
      .select('data')
      .where('package_id', '=', p2!)
      .where('event_name', '=', 'RecipientNotified')
      .execute()
    expect(events.map((e) => (e.data as { notification: unknown }).notification)).toMatchObject([
      { channel: 'sms', status: 'sent', to: r.phone },
    ])
  })

  it('sends both an email and a text when the recipient chose both; the text names its email', async () => {
    const r = await texter(['email', 'sms'])
    provider.clear()
    smtp.clear()
    const [p] = await arriveAndSend(r.id)
    await smtp.waitFor(1)
    expect(provider.requests).toHaveLength(1)
    const rows = await list(`packageId=${p}`)
    const email = rows.find((x) => x.channel === 'email')!
    const text = rows.find((x) => x.channel === 'sms')!
    expect(email).toMatchObject({ status: 'sent', packageIds: [p] })
    expect(text).toMatchObject({ status: 'sent', packageIds: [p], parentId: email.notificationId, to: r.phone })
    // Resending the email does not queue a second text (one per notification).
    await s.a.ok('POST', `/api/v1/notifications/${email.notificationId as string}/resend`, undefined, 200)
    await t.ctx.notifications.runOnce()
    expect(provider.requests).toHaveLength(1)
    expect(await list(`packageId=${p}`)).toHaveLength(2)
  })

  it('takes delivery receipts into the status, signed; a bad signature is a 404', async () => {
    const r = await texter(['sms'])
    provider.clear()
    const [p] = await arriveAndSend(r.id)
    const [n] = await list(`packageId=${p}`)
    const messageSid = (
      await t.ctx.db
        .selectFrom('notifications')
        .select('provider_message_id')
        .where('notification_id', '=', n!.notificationId as string)
        .executeTakeFirstOrThrow()
    ).provider_message_id!
    expect(messageSid).toMatch(/^SM/)
    const form = { MessageSid: messageSid, MessageStatus: 'delivered', To: r.phone }
    expect((await post('status', form, 'bm90IGl0')).statusCode).toBe(404)
    expect((await list(`packageId=${p}`))[0]).not.toHaveProperty('deliveryStatus')
    expect((await post('status', form)).statusCode).toBe(204)
    expect((await list(`packageId=${p}`))[0]).toMatchObject({
      deliveryStatus: 'delivered',
      deliveredAt: expect.any(String),
    })
    // A late "sent" does not undo "delivered".
    expect((await post('status', { ...form, MessageStatus: 'sent' })).statusCode).toBe(204)
    expect((await list(`packageId=${p}`))[0]).toMatchObject({ deliveryStatus: 'delivered' })
  })

  it('retries a 429 with the back-off, and fails a 4xx refusal at once with the provider’s words', async () => {
    const r = await texter(['sms'])
    provider.clear()
    provider.answerNext(429, { code: 20429, message: 'Too Many Requests', status: 429 })
    const [p] = await arriveAndSend(r.id)
    expect((await list(`packageId=${p}`))[0]).toMatchObject({ status: 'pending', attempts: 1 })
    expect((await list(`packageId=${p}`))[0]!.lastError).toContain('429')
    t.clock.advance(3_600_000)
    await t.ctx.notifications.runOnce()
    expect((await list(`packageId=${p}`))[0]).toMatchObject({ status: 'sent', attempts: 2 })
    expect(provider.requests).toHaveLength(2)

    provider.answerNext(400, { code: 21211, message: "The 'To' number is not a valid phone number.", status: 400 })
    const [q] = await arriveAndSend(r.id)
    const failed = (await list(`packageId=${q}`))[0]!
    expect(failed).toMatchObject({ status: 'failed', attempts: 1 })
    expect(failed.lastError).toContain('21211')
  })

  it('STOP stops texts at once and is confirmed once; HELP is answered; START turns them on again', async () => {
    const r = await texter(['sms'])
    provider.clear()
    smtp.clear()
    const stop = { MessageSid: 'SMin1', From: r.phone, To: '+15550009999', Body: ' Stop ' }
    const res = await post('inbound', stop)
    expect(res.statusCode).toBe(200)
    expect(res.headers['content-type']).toContain('text/xml')
    expect(provider.requests.map((q) => q.form)).toMatchObject([
      { To: r.phone, Body: expect.stringMatching(/^HQ Mailroom: you will get no more texts/) },
    ])
    // The provider's retry of the same message: no second confirmation.
    expect((await post('inbound', stop)).statusCode).toBe(200)
    expect(provider.requests).toHaveLength(1)
    expect((await s.a.ok('GET', `/api/v1/notifications/recipients/${r.id}/channels`)).sms).toMatchObject({
      stopped: true,
      optedIn: true,
    })
    // An arrival now: no text; the recipient is emailed instead.
    provider.clear()
    const [p] = await arriveAndSend(r.id)
    expect(provider.requests).toHaveLength(0)
    await smtp.waitFor(1)
    expect((await list(`packageId=${p}`))[0]).toMatchObject({ channel: 'email', status: 'sent' })

    await post('inbound', { MessageSid: 'SMin2', From: r.phone, To: '+15550009999', Body: 'help' })
    expect(provider.requests.at(-1)!.form.Body).toContain('Reply STOP to opt out')
    await post('inbound', { MessageSid: 'SMin3', From: r.phone, To: '+15550009999', Body: 'START' })
    expect(provider.requests.at(-1)!.form.Body).toContain('texts about your parcels are on again')
    provider.clear()
    const [q] = await arriveAndSend(r.id)
    expect(provider.requests).toHaveLength(1)
    expect((await list(`packageId=${q}`))[0]).toMatchObject({ channel: 'sms', status: 'sent' })
  })

  it('texts a phone written nationally at its E.164 number, and a STOP from that number stops it', async () => {
    const id = await s.a.contact('RECEIVER', 'Nat Ional', { phone: '(555) 123-4567' })
    await s.a.ok('PUT', `/api/v1/notifications/recipients/${id}/channels`, {
      kinds: { ARRIVAL: ['sms'] },
      sms: { optedIn: true, source: 'desk form' },
    })
    provider.clear()
    await arriveAndSend(id)
    expect(provider.requests.map((r) => r.form.To)).toEqual(['+15551234567'])
    await post('inbound', { MessageSid: 'SMnat1', From: '+15551234567', To: '+15550009999', Body: 'STOP' })
    expect((await s.a.ok('GET', `/api/v1/notifications/recipients/${id}/channels`)).sms).toMatchObject({
      stopped: true,
    })
    provider.clear()
    const [p] = await arriveAndSend(id)
    expect(provider.requests).toHaveLength(0)
    expect((await list(`packageId=${p}`))[0]).toMatchObject({ status: 'suppressed' })
  })

  it('suppresses a text already queued when its number says STOP before it goes', async () => {
    const r = await texter(['email', 'sms'])
    provider.clear()
    smtp.clear()
    // The email goes and queues its text, whose first try is rate limited: it waits for its retry.
    provider.answerNext(429, { code: 20429, message: 'Too Many Requests', status: 429 })
    const [p] = await arriveAndSend(r.id)
    await smtp.waitFor(1)
    expect((await list(`packageId=${p}`)).find((x) => x.channel === 'sms')).toMatchObject({ status: 'pending' })
    await post('inbound', { MessageSid: 'SMin9', From: r.phone, To: '+15550009999', Body: 'STOP' })
    provider.clear()
    t.clock.advance(3_600_000)
    await t.ctx.notifications.runOnce()
    expect(provider.requests).toHaveLength(0)
    const text = (await list(`packageId=${p}`)).find((x) => x.channel === 'sms')!
    expect(text).toMatchObject({ status: 'suppressed', lastError: 'the number replied STOP' })
  })

  it('holds a text due in quiet hours until they end, in the site’s time zone', async () => {
    const zone = 'America/New_York'
    const hhmm = (d: Date) =>
      new Intl.DateTimeFormat('en-GB', { timeZone: zone, hour: '2-digit', minute: '2-digit', hourCycle: 'h23' }).format(
        d,
      )
    const now = t.clock.now().getTime()
    const start = hhmm(new Date(now - 3_600_000))
    const end = hhmm(new Date(now + 2 * 3_600_000))
    await s.a.ok('PUT', '/api/v1/notifications/sms/settings', smsSettings({ quietHours: { start, end } }))
    try {
      const r = await texter(['sms'])
      provider.clear()
      const [p] = await arriveAndSend(r.id)
      expect(provider.requests).toHaveLength(0)
      const held = (await list(`packageId=${p}`))[0]!
      expect(held).toMatchObject({ status: 'pending', channel: 'sms' })
      expect(held.lastError).toContain('quiet hours')
      t.clock.advance(3_600_000)
      await t.ctx.notifications.runOnce()
      expect(provider.requests).toHaveLength(0)
      t.clock.advance(3_600_000)
      await t.ctx.notifications.runOnce()
      expect(provider.requests).toHaveLength(1)
      expect((await list(`packageId=${p}`))[0]).toMatchObject({ status: 'sent' })
    } finally {
      await s.a.ok('PUT', '/api/v1/notifications/sms/settings', smsSettings())
    }
  })
})
