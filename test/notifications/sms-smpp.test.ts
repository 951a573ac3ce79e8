import { sql } from 'kysely'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { TestSmsc } from './sms-servers.js'
import { useTextsRoom } from './texts-room.js'

describe('texts through an SMPP 3.4 SMSC (the smpp library’s server mode)', () => {
  const smsc = new TestSmsc()
  const env: Record<string, string> = { SMS_ALLOW_CIDRS: '127.0.0.0/8' }
  beforeAll(() => smsc.start())
  afterAll(() => smsc.close())
  const s = useTextsRoom(env, '1ZSMPP')
  const { t } = s
  let phoneN = 200

  const smpp = (over: Record<string, unknown> = {}) => ({
    provider: 'smpp',
    url: smsc.url,
    account: 'mailroom',
    secret: 'secret12',
    from: 'MAILROOM',
    senderName: 'HQ Mailroom',
    channels: {
      allowed: ['email', 'sms'],
      defaults: { ARRIVAL: ['sms'], REMINDER: ['sms'], FINAL_NOTICE: ['sms'], PICKED_UP: ['sms'] },
    },
    quietHours: null,
    ...over,
  })
  /** A recipient opted in, following the facility's default (texts). */
  const texter = async () => {
    const phone = `+1555${++phoneN}0000`
    const id = await s.a.contact('RECEIVER', `Sam ${phoneN}`, { phone })
    await s.a.ok('PUT', `/api/v1/notifications/recipients/${id}/channels`, {
      kinds: {},
      sms: { optedIn: true, source: 'portal' },
    })
    return { id, phone }
  }

  it('refuses an SMPP provider with an http URL, naming the field', async () => {
    const res = await s.a.call('PUT', '/api/v1/notifications/sms/settings', smpp({ url: 'https://smsc.example.com' }))
    expect(res.statusCode).toBe(400)
    expect(res.json().errors.map((e: { additionalParameters: string }) => e.additionalParameters)).toEqual(['url'])
  })

  it('refuses an SMPP URL whose host other parsers read differently (a private address behind @, \\ or %)', async () => {
    for (const url of [
      'smpp://127.0.0.1\\@smsc.example.com:2775',
      'smpp://127.0.0.1%2f:2775',
      'smpp://u@smsc.example.com',
    ]) {
      const res = await s.a.call('PUT', '/api/v1/notifications/sms/settings', smpp({ url }))
      expect(res.statusCode, url).toBe(400)
      expect(res.json().errors.map((e: { additionalParameters: string }) => e.additionalParameters)).toEqual(['url'])
    }
  })

  it('binds, submits one submit_sm per arrival batch with the pickup code first, and records the message_id', async () => {
    await s.a.ok('PUT', '/api/v1/notifications/sms/settings', smpp())
    const r = await texter()
    const [p1, p2] = await s.arriveAllAndSend(r.id, 2)
    expect(smsc.bound).toBe(true)
    expect(smsc.submitted).toHaveLength(1)
    const [sent] = smsc.submitted
    expect(sent).toMatchObject({ from: 'MAILROOM', to: r.phone })
    expect(sent!.body).toMatch(/^Pickup code \w+\. 2 parcels arrived for Sam \d+ at /)
    await t.ctx.notifications.runOnce()
    expect(smsc.submitted).toHaveLength(1)
    const [n] = await s.list(`packageId=${p1}`)
    expect(n).toMatchObject({ channel: 'sms', status: 'sent', to: r.phone, packageIds: [p1, p2] })
    // The SMSC's delivery receipt (deliver_sm, esm_class 0x04) becomes the delivery status.
    expect(await smsc.receipt(sent!.messageId, 'DELIVRD')).toBe(0)
    expect((await s.list(`packageId=${p1}`))[0]).toMatchObject({ deliveryStatus: 'delivered' })
  })

  it('records an undelivered receipt with the SMSC’s stat', async () => {
    const r = await texter()
    const p = await s.arriveAndSend(r.id)
    const sent = smsc.submitted.at(-1)!
    expect(sent.to).toBe(r.phone)
    expect(await smsc.receipt(sent.messageId, 'UNDELIV')).toBe(0)
    const n = (await s.list(`packageId=${p}`))[0]!
    expect(n).toMatchObject({ status: 'sent', deliveryStatus: 'undelivered' })
    expect(n.lastError).toContain('UNDELIV')
  })

  it('a STOP in a deliver_sm stops texts at once and is confirmed by one submit_sm; START re-enables', async () => {
    const r = await texter()
    const before = smsc.submitted.length
    expect(await smsc.reply(r.phone, 'MAILROOM', 'STOP')).toBe(0)
    const replies = smsc.submitted.slice(before)
    expect(replies).toHaveLength(1)
    expect(replies[0]).toMatchObject({ to: r.phone, from: 'MAILROOM' })
    expect(replies[0]!.body).toMatch(/^HQ Mailroom: you will get no more texts/)
    expect((await s.a.ok('GET', `/api/v1/notifications/recipients/${r.id}/channels`)).sms).toMatchObject({
      stopped: true,
    })
    // No text now; the contact has no email, so the notification is suppressed for that.
    const p = await s.arriveAndSend(r.id)
    expect(smsc.submitted.slice(before)).toHaveLength(1)
    expect((await s.list(`packageId=${p}`))[0]).toMatchObject({ channel: 'email', status: 'suppressed' })

    expect(await smsc.reply(r.phone, 'MAILROOM', 'start')).toBe(0)
    expect(smsc.submitted.at(-1)!.body).toContain('on again')
    const q = await s.arriveAndSend(r.id)
    expect((await s.list(`packageId=${q}`))[0]).toMatchObject({ channel: 'sms', status: 'sent' })
  })

  it('a STOP the SMSC delivers again is confirmed once; a STOP after a START counts again', async () => {
    const r = await texter()
    const before = smsc.submitted.length
    const sent = () => smsc.submitted.slice(before).map((s) => s.body)
    // No SMSC id: known by its content, the same on re-delivery.
    expect(await smsc.reply(r.phone, 'MAILROOM', 'STOP')).toBe(0)
    expect(await smsc.reply(r.phone, 'MAILROOM', 'STOP')).toBe(0)
    expect(sent()).toEqual([expect.stringMatching(/no more texts/)])
    // A new message from the phone in between: the next STOP is a new one, stopped and confirmed.
    expect(await smsc.reply(r.phone, 'MAILROOM', 'START')).toBe(0)
    expect(await smsc.reply(r.phone, 'MAILROOM', 'STOP')).toBe(0)
    expect(sent()).toEqual([
      expect.stringMatching(/no more texts/),
      expect.stringMatching(/on again/),
      expect.stringMatching(/no more texts/),
    ])
    expect((await s.a.ok('GET', `/api/v1/notifications/recipients/${r.id}/channels`)).sms).toMatchObject({
      stopped: true,
    })
    // The SMSC's own id (receipted_message_id): its re-delivery is known by it.
    const withId = { receipted_message_id: 'mo-4711' }
    expect(await smsc.reply(r.phone, 'MAILROOM', 'START', 0, withId)).toBe(0)
    expect(await smsc.reply(r.phone, 'MAILROOM', 'START', 0, withId)).toBe(0)
    expect(sent()).toHaveLength(4)
    expect(sent()[3]).toMatch(/on again/)
    // Another id, the same words: another message, answered.
    expect(await smsc.reply(r.phone, 'MAILROOM', 'START', 0, { receipted_message_id: 'mo-4712' })).toBe(0)
    expect(sent()).toHaveLength(5)
  })

  it('one STOP delivered twice at once (the SMSC re-delivering while the first is handled) is confirmed once', async () => {
    const r = await texter()
    const before = smsc.submitted.length
    // A slow database: the first delivery's transaction is still open when the second one reads.
    // (The race needs two connections: on PostgreSQL, not on PGlite's one, where transactions queue.)
    await sql`create function slow_sms_inbound() returns trigger language plpgsql as $$
      begin perform pg_sleep(0.3); return null; end $$`.execute(t.ctx.db)
    await sql`create trigger slow_sms_inbound after insert on notification_sms_inbound
      for each row execute function slow_sms_inbound()`.execute(t.ctx.db)
    try {
      // No SMSC id: both known by their content, handled side by side.
      expect(
        await Promise.all([smsc.reply(r.phone, 'MAILROOM', 'STOP'), smsc.reply(r.phone, 'MAILROOM', 'STOP')]),
      ).toEqual([0, 0])
    } finally {
      await sql`drop trigger slow_sms_inbound on notification_sms_inbound`.execute(t.ctx.db)
      await sql`drop function slow_sms_inbound()`.execute(t.ctx.db)
    }
    expect(smsc.submitted.slice(before).map((s) => [s.to, s.body])).toEqual([
      [r.phone, expect.stringMatching(/no more texts/)],
    ])
    expect((await s.a.ok('GET', `/api/v1/notifications/recipients/${r.id}/channels`)).sms).toMatchObject({
      stopped: true,
    })
  })

  it('an SMSC that puts one constant id on every reply: STOPs from two numbers are both stopped and answered', async () => {
    const [r1, r2] = [await texter(), await texter()]
    const before = smsc.submitted.length
    const constant = { receipted_message_id: '0' }
    expect(await smsc.reply(r1.phone, 'MAILROOM', 'STOP', 0, constant)).toBe(0)
    expect(await smsc.reply(r2.phone, 'MAILROOM', 'STOP', 0, constant)).toBe(0)
    expect(smsc.submitted.slice(before).map((s) => [s.to, s.body])).toEqual([
      [r1.phone, expect.stringMatching(/no more texts/)],
      [r2.phone, expect.stringMatching(/no more texts/)],
    ])
    for (const r of [r1, r2])
      expect((await s.a.ok('GET', `/api/v1/notifications/recipients/${r.id}/channels`)).sms).toMatchObject({
        stopped: true,
      })
  })

  it('texts a phone written nationally at its E.164 number; a STOP from it without the + (ton 1) stops it', async () => {
    const id = await s.a.contact('RECEIVER', 'Nat Smpp', { phone: '(555) 123-4568' })
    await s.a.ok('PUT', `/api/v1/notifications/recipients/${id}/channels`, {
      kinds: {},
      sms: { optedIn: true, source: 'portal' },
    })
    await s.arriveAndSend(id)
    expect(smsc.submitted.at(-1)).toMatchObject({ to: '+15551234568' })
    expect(await smsc.reply('15551234568', 'MAILROOM', 'STOP', 1)).toBe(0)
    expect(smsc.submitted.at(-1)).toMatchObject({ to: '+15551234568', body: expect.stringMatching(/no more texts/) })
    const before = smsc.submitted.length
    const p = await s.arriveAndSend(id)
    expect(smsc.submitted).toHaveLength(before)
    expect((await s.list(`packageId=${p}`))[0]).toMatchObject({ status: 'suppressed' })
  })

  it('retries a throttled submit (ESME_RTHROTTLED) and fails an invalid destination (ESME_RINVDSTADR) at once', async () => {
    const r = await texter()
    smsc.refuseNext(0x58)
    const p = await s.arriveAndSend(r.id)
    expect((await s.list(`packageId=${p}`))[0]).toMatchObject({ status: 'pending', attempts: 1 })
    t.clock.advance(3_600_000)
    await t.ctx.notifications.runOnce()
    expect((await s.list(`packageId=${p}`))[0]).toMatchObject({ status: 'sent', attempts: 2 })
    smsc.refuseNext(0x0b)
    const q = await s.arriveAndSend(r.id)
    const failed = (await s.list(`packageId=${q}`))[0]!
    expect(failed).toMatchObject({ status: 'failed', attempts: 1 })
    expect(failed.lastError).toContain('command_status 11')
  })

  it('a refused bind keeps the text for a retry, sent once the credentials are right', async () => {
    await s.a.ok('PUT', '/api/v1/notifications/sms/settings', smpp({ secret: 'wrong123' }))
    const r = await texter()
    const p = await s.arriveAndSend(r.id)
    const n = (await s.list(`packageId=${p}`))[0]!
    expect(n).toMatchObject({ status: 'pending', attempts: 1 })
    expect(n.lastError).toContain('refused the bind')
    await s.a.ok('PUT', '/api/v1/notifications/sms/settings', smpp())
    t.clock.advance(3_600_000)
    await t.ctx.notifications.runOnce()
    expect((await s.list(`packageId=${p}`))[0]).toMatchObject({ status: 'sent', attempts: 2, to: r.phone })
  })

  it('switching provider changes nothing else: the next text goes through the new one', async () => {
    const r = await texter()
    await s.a.ok(
      'PUT',
      '/api/v1/notifications/sms/settings',
      smpp({ provider: 'none', url: undefined, account: undefined, from: undefined, secret: undefined }),
    )
    const p = await s.arriveAndSend(r.id)
    // No provider: the recipient is emailed (no address: suppressed), no text is attempted.
    expect((await s.list(`packageId=${p}`))[0]).toMatchObject({ channel: 'email', status: 'suppressed' })
    await s.a.ok('PUT', '/api/v1/notifications/sms/settings', smpp())
    const before = smsc.submitted.length
    const q = await s.arriveAndSend(r.id)
    expect(smsc.submitted.length).toBe(before + 1)
    expect((await s.list(`packageId=${q}`))[0]).toMatchObject({ channel: 'sms', status: 'sent' })
  })
})
