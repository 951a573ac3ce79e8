import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { destinationRules, type Lookup } from '../../src/webhooks/delivery/destination.js'
import { createGuardedSender, SendError } from '../../src/webhooks/delivery/http-sender.js'
import { createWebhooks } from '../../src/webhooks/module.js'
import { useTestApp } from '../support/use-test-app.js'
import { configBody, emit, hooks } from './support/helpers.js'
import { Receiver } from './support/receiver.js'

// The SSRF guard end to end: refused when a configuration is saved, and again when connecting.
const t = useTestApp() // production defaults: https only, no allow-listed ranges
let rx: Receiver
beforeAll(async () => {
  rx = await new Receiver().start()
})
afterAll(() => rx?.close())

describe('refused destinations when saving a configuration', () => {
  it.each([
    'https://10.0.0.1/hook',
    'https://172.16.5.4/hook',
    'https://192.168.1.10/hook',
    'https://127.0.0.1/hook',
    'https://127.1/hook',
    'https://2130706433/hook',
    'https://[::1]/hook',
    'https://[::ffff:127.0.0.1]/hook',
    'https://[::ffff:10.0.0.1]/hook',
    'https://169.254.169.254/latest',
    'https://[fe80::1]/hook',
    'https://[fd00::1]/hook',
    'https://100.64.0.1/hook',
    'https://224.0.0.1/hook',
    'https://[ff02::1]/hook',
    'https://0.0.0.0/hook',
    'https://255.255.255.255/hook',
    'https://240.0.0.1/hook',
    'https://192.0.2.1/hook',
    'https://[2001:db8::1]/hook',
    'https://198.18.0.1/hook',
    'https://[64:ff9b::a00:1]/hook',
    'https://localhost/hook',
  ])('%s → 400', async (url) => {
    const h = hooks(t, await t.newClient())
    const res = await h.call('POST', '/webhookConfig', configBody(url))
    expect(res.statusCode, res.body).toBe(400)
    expect(res.json().errors[0]).toMatchObject({ additionalCode: 'WHK-4001', additionalParameters: 'url' })
  })

  it('refuses http:// unless the operator allows it', async () => {
    const h = hooks(t, await t.newClient())
    const res = await h.call('POST', '/webhookConfig', configBody('http://hooks.example.com/x'))
    expect(res.statusCode).toBe(400)
    expect(res.json().errors[0]).toMatchObject({
      additionalParameters: 'url',
      errorDescription: 'url must be an https:// URL',
    })
  })
})

describe('refused destinations when connecting', () => {
  it('a name that resolved to nothing when saved and to 127.0.0.1 when sending is refused, and nothing is sent', async () => {
    const client = await t.newClient()
    const h = hooks(t, client)
    // Not resolvable now (.test is reserved), so accepted; DNS "changes" before the send.
    const cfg = await h.create(configBody(`https://rebind.test:${rx.port}/hook`))
    const lookups: string[] = []
    const lookup: Lookup = async (host) => {
      lookups.push(host)
      return [{ address: '127.0.0.1', family: 4 }]
    }
    const worker = createWebhooks({
      db: t.ctx.db,
      clock: t.clock,
      ids: t.ctx.ids,
      config: t.config,
      sealKey: t.ctx.secrets.webhookKey,
      lookup,
    })
    try {
      await emit(t, client.subId, { eventName: 'Received' })
      await worker.runOnce()
    } finally {
      await worker.close()
    }
    expect(lookups).toEqual(['rebind.test'])
    expect(rx.requests).toHaveLength(0)
    const [d] = await h.deliveries(cfg.webHookConfigID)
    expect(d).toMatchObject({
      status: 'pending',
      lastError: expect.stringContaining('refused destination 127.0.0.1 (loopback address)'),
    })
    expect((await h.attempts(cfg.webHookConfigID, d!.deliveryId as string))[0]).toMatchObject({ errorClass: 'ssrf' })
  })

  it('checks every resolved address and connects only to one that was checked, without a second lookup', async () => {
    let calls = 0
    const answers: Record<string, Array<{ address: string; family: number }>> = {
      'mixed.test': [
        { address: '10.0.0.7', family: 4 },
        { address: '169.254.169.254', family: 4 },
      ],
      'good.test': [{ address: '127.0.0.1', family: 4 }],
      'half.test': [
        { address: '10.0.0.7', family: 4 },
        { address: '127.0.0.1', family: 4 },
      ],
    }
    const lookup: Lookup = async (host) => {
      calls++
      return answers[host] ?? []
    }
    const sender = createGuardedSender(destinationRules({ allowHttp: true, allowCidrs: ['127.0.0.0/8'], lookup }))
    const post = (url: string) => sender.post({ url, headers: {}, body: '{}', timeoutMs: 2000 })
    try {
      await expect(post(`http://mixed.test:${rx.port}/x`)).rejects.toMatchObject({
        errorClass: 'ssrf',
        message: expect.stringContaining('10.0.0.7 (private address)'),
      })
      // .test names resolve nowhere for real: reaching the receiver proves the socket used our checked answer.
      const ok = await post(`http://good.test:${rx.port}/x`)
      expect(ok.status).toBe(200)
      expect(rx.at('/x').at(-1)!.headers.host).toBe(`good.test:${rx.port}`)
      expect((await post(`http://half.test:${rx.port}/x`)).status).toBe(200)
      expect(calls).toBe(3)
      // IP literals skip name resolution: they are checked before connecting.
      await expect(post('http://10.0.0.1/x')).rejects.toBeInstanceOf(SendError)
      await expect(post('http://[::1]:1/x')).rejects.toMatchObject({ errorClass: 'ssrf' })
      await expect(post('http://169.254.169.254/latest/meta-data')).rejects.toMatchObject({ errorClass: 'ssrf' })
      expect(calls).toBe(3)
      await expect(post(`http://nothing.test:${rx.port}/x`)).rejects.toMatchObject({ errorClass: 'dns' })
    } finally {
      await sender.close()
    }
  })

  it('refuses plain http at send time too when it is not allowed', async () => {
    const sender = createGuardedSender(destinationRules({ allowHttp: false, allowCidrs: ['127.0.0.0/8'] }))
    await expect(sender.post({ url: rx.url('/y'), headers: {}, body: '{}', timeoutMs: 1000 })).rejects.toMatchObject({
      errorClass: 'ssrf',
    })
    await sender.close()
    expect(rx.at('/y')).toHaveLength(0)
  })
})
