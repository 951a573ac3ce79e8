import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { useSmsApp } from './sms-app.js'
import { TestSmsc } from './sms-servers.js'

describe('a Messages API that fails, and a switch to SMPP', () => {
  const s = useSmsApp()
  const smsc = new TestSmsc()
  beforeAll(() => smsc.start())
  afterAll(() => smsc.close())

  it('retries a 5xx with the back-off: not at once, then sent on a later attempt', async () => {
    const r = await s.texter(['sms'])
    s.provider.clear()
    s.provider.answerNext(503, { code: 20503, message: 'Service Unavailable', status: 503 })
    const p = await s.arriveAndSend(r.id)
    const first = (await s.list(`packageId=${p}`))[0]!
    expect(first).toMatchObject({ channel: 'sms', status: 'pending', attempts: 1 })
    expect(first.lastError).toContain('503')
    // Its retry waits: a worker run right away does not ask the provider again.
    await s.t.ctx.notifications.runOnce()
    expect(s.provider.requests).toHaveLength(1)
    s.t.clock.advance(3_600_000)
    await s.t.ctx.notifications.runOnce()
    expect((await s.list(`packageId=${p}`))[0]).toMatchObject({ status: 'sent', attempts: 2 })
    expect(s.provider.requests).toHaveLength(2)
  })

  it('switching from the Messages API to SMPP changes nothing else: the next text goes by SMPP, history kept', async () => {
    const r = await s.texter(['sms'])
    s.provider.clear()
    const p = await s.arriveAndSend(r.id)
    expect(s.provider.requests).toHaveLength(1)
    const before = (await s.list(`packageId=${p}`))[0]!
    expect(before).toMatchObject({ channel: 'sms', status: 'sent', to: r.phone })
    const prefs = await s.a.ok('GET', `/api/v1/notifications/recipients/${r.id}/channels`)

    const { channels } = s.smsSettings()
    await s.a.ok('PUT', '/api/v1/notifications/sms/settings', {
      ...s.smsSettings(),
      provider: 'smpp',
      url: smsc.url,
      account: 'mailroom',
      secret: 'secret12',
      from: 'MAILROOM',
      channels,
    })
    const q = await s.arriveAndSend(r.id)
    expect(s.provider.requests).toHaveLength(1)
    expect(smsc.submitted).toHaveLength(1)
    expect(smsc.submitted[0]!.body).toMatch(/^Pickup code \w+\./)
    expect((await s.list(`packageId=${q}`))[0]).toMatchObject({ channel: 'sms', status: 'sent', to: r.phone })
    // The earlier text, the recipient's choice and opt-in: as they were.
    expect((await s.list(`packageId=${p}`))[0]).toEqual(before)
    expect(await s.a.ok('GET', `/api/v1/notifications/recipients/${r.id}/channels`)).toEqual(prefs)
  })
})

describe('a Messages API request that times out', () => {
  const s = useSmsApp({ NOTIFY_SEND_TIMEOUT_SECONDS: '1' })

  it('is recorded unconfirmed, as a killed send is, and never sent again', async () => {
    const r = await s.texter(['sms'])
    s.provider.clear()
    // The provider takes the request and answers only when the test lets it: after the deadline.
    let release = () => {}
    const answered = new Promise<void>((resolve) => (release = resolve))
    s.provider.hold = () => answered
    let p: string
    try {
      p = await s.arriveAndSend(r.id)
    } finally {
      release()
      s.provider.hold = undefined
    }
    expect(s.provider.requests).toHaveLength(1)
    const text = (await s.list(`packageId=${p}`))[0]!
    expect(text).toMatchObject({ channel: 'sms', status: 'unconfirmed', attempts: 1, to: r.phone })
    expect(text.lastError).toContain('not sent again')
    expect(text.sentAt).toEqual(expect.any(String))
    s.t.clock.advance(6 * 3_600_000)
    await s.t.ctx.notifications.runOnce()
    await s.t.ctx.notifications.runOnce()
    expect(s.provider.requests).toHaveLength(1)
    await s.refresh()
    expect((await s.list(`packageId=${p}`))[0]).toMatchObject({ status: 'unconfirmed', attempts: 1 })
  })
})
