import { beforeEach, describe, expect, it } from 'vitest'
import { useSmsApp } from './sms-app.js'

// Texts' guarantees a review found missing (issue 29): an email whose text was queued beside it
// never becomes a second text; quiet hours hold a batch open instead of spending its attempt; a
// provider's secret never follows a changed URL to another host.
describe('texts: one per batch whatever changes between attempts, and secrets kept to their host', () => {
  const s = useSmsApp()
  const { t, provider, smtp, smsSettings, addFor } = s
  const list = (query: string) => s.list(query)
  beforeEach(async () => {
    await s.a.ok('PUT', '/api/v1/notifications/sms/settings', smsSettings())
    provider.clear()
    smtp.clear()
  })
  const choose = (id: string, arrival: string[]) =>
    s.a.ok('PUT', `/api/v1/notifications/recipients/${id}/channels`, {
      kinds: { ARRIVAL: arrival },
      sms: { optedIn: true, source: 'desk form' },
    })
  const texter = (arrival: string[]) => s.texter(arrival)

  it('an email whose text is queued never becomes a second text when its recipient switches to texts only', async () => {
    const r = await texter(['email', 'sms'])
    // The email's first try is refused by the SMTP server (a retry); its text is queued and sent.
    let refuse = true
    smtp.hold = async () => {
      if (refuse) {
        refuse = false
        throw new Error('mailbox busy, try later')
      }
    }
    try {
      const p = await addFor(r.id)
      t.clock.advance(61_000)
      await t.ctx.notifications.runOnce()
      const rows = await list(`packageId=${p}`)
      const email = rows.find((x) => x.channel === 'email')!
      expect(email).toMatchObject({ status: 'pending', attempts: 1 })
      expect(rows.find((x) => x.channel === 'sms')).toMatchObject({ status: 'sent', parentId: email.notificationId })
      expect(provider.requests).toHaveLength(1)

      await choose(r.id, ['sms'])
      t.clock.advance(3_600_000)
      await t.ctx.notifications.runOnce()
      expect(provider.requests).toHaveLength(1)
      const after = await list(`packageId=${p}`)
      expect(after).toHaveLength(2)
      expect(after.find((x) => x.notificationId === email.notificationId)).toMatchObject({
        channel: 'email',
        status: 'suppressed',
        lastError: expect.stringContaining('texts only'),
      })
      expect(smtp.received).toHaveLength(0)
    } finally {
      smtp.hold = undefined
    }
  })

  it('quiet hours keep the batch open without spending its attempt: one text when they end, with every parcel', async () => {
    const zone = 'America/New_York'
    const hhmm = (d: Date) =>
      new Intl.DateTimeFormat('en-GB', { timeZone: zone, hour: '2-digit', minute: '2-digit', hourCycle: 'h23' }).format(
        d,
      )
    const now = t.clock.now().getTime()
    const quietHours = { start: hhmm(new Date(now - 3_600_000)), end: hhmm(new Date(now + 2 * 3_600_000)) }
    await s.a.ok('PUT', '/api/v1/notifications/sms/settings', smsSettings({ quietHours }))
    const r = await texter(['sms'])
    const p1 = await addFor(r.id)
    t.clock.advance(61_000)
    await t.ctx.notifications.runOnce()
    const held = (await list(`packageId=${p1}`))[0]!
    expect(held).toMatchObject({ status: 'pending', channel: 'sms', attempts: 0 })
    expect(held.lastError).toContain('quiet hours')
    // More parcels in the night join the text that waits.
    t.clock.advance(1_800_000)
    const p2 = await addFor(r.id)
    t.clock.advance(61_000)
    await t.ctx.notifications.runOnce()
    t.clock.advance(1_800_000)
    const p3 = await addFor(r.id)
    t.clock.advance(61_000)
    await t.ctx.notifications.runOnce()
    expect(provider.requests).toHaveLength(0)

    t.clock.advance(2 * 3_600_000)
    await t.ctx.notifications.runOnce()
    await t.ctx.notifications.runOnce()
    expect(provider.requests).toHaveLength(1)
    expect(provider.requests[0]!.form.Body).toMatch(/^Pickup code \w+\. 3 parcels arrived/)
    const [n] = await list(`packageId=${p1}`)
    expect(n).toMatchObject({ status: 'sent', attempts: 1, packageIds: [p1, p2, p3] })
  })

  it('refuses a changed provider URL without its secret, naming the field; with it, the change is saved', async () => {
    const { secret: _s, ...noSecret } = smsSettings()
    // The same URL: the stored secret is kept.
    expect(await s.a.ok('PUT', '/api/v1/notifications/sms/settings', noSecret)).toMatchObject({ secretSet: true })
    const moved = { ...noSecret, url: 'https://sms.elsewhere.example/2010-04-01' }
    const res = await s.a.call('PUT', '/api/v1/notifications/sms/settings', moved)
    expect(res.statusCode, res.body).toBe(400)
    expect(res.json().errors.map((e: { additionalParameters: string }) => e.additionalParameters)).toEqual(['secret'])
    expect((await s.a.ok('GET', '/api/v1/notifications/sms/settings')).url).toBe(provider.url)
    expect(
      await s.a.ok('PUT', '/api/v1/notifications/sms/settings', { ...moved, secret: 'token-for-elsewhere' }),
    ).toMatchObject({ url: moved.url, secretSet: true })

    // An SMPP host likewise.
    const smpp = { ...noSecret, provider: 'smpp', url: 'smpp://smsc-a.example:2775', from: 'HQ' }
    await s.a.ok('PUT', '/api/v1/notifications/sms/settings', { ...smpp, secret: 'pw-a' })
    const other = await s.a.call('PUT', '/api/v1/notifications/sms/settings', {
      ...smpp,
      url: 'smpp://smsc-b.example:2775',
    })
    expect(other.statusCode, other.body).toBe(400)
    expect(other.json().errors.map((e: { additionalParameters: string }) => e.additionalParameters)).toEqual(['secret'])
  })
})
