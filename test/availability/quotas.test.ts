import { describe, expect, it } from 'vitest'
import type { TestClient } from '../support/build-test-app.js'
import { useTestApp } from '../support/use-test-app.js'
import { WindowCounter } from '../../src/platform/fairness/window-counter.js'
import { WindowQuota } from '../../src/platform/fairness/quotas.js'
import { JPEG_BYTES } from '../support/factories.js'
import { configBody, hooks } from '../webhooks/support/helpers.js'

/** Issue 14.4: uploads, held images, webhook configurations and test sends bounded per subscription, each refusal naming its limit. */
describe('quotas', () => {
  const t = useTestApp({
    IMAGE_UPLOADS_PER_HOUR: '2',
    IMAGE_UPLOAD_BYTES_PER_HOUR: '2048',
    IMAGE_TEMP_MAX: '3',
    WEBHOOK_CONFIGS_MAX: '2',
    WEBHOOK_TESTS_PER_MINUTE: '2',
    MAILROOM_WEBHOOK_ALLOW_HTTP: 'true',
    MAILROOM_WEBHOOK_ALLOW_CIDRS: '127.0.0.0/8',
  })

  /** A JPEG of `size` bytes (the header, padding, the end marker). */
  const jpeg = (size: number) =>
    `data:image/jpeg;base64,${Buffer.concat([JPEG_BYTES.subarray(0, -2), Buffer.alloc(size - JPEG_BYTES.length), JPEG_BYTES.subarray(-2)]).toString('base64')}`
  const upload = (c: TestClient, size = 100) =>
    t.inject({ method: 'POST', url: '/api/v1/packages/images', headers: c.auth, payload: { base64: jpeg(size) } })
  const refusal = (res: { statusCode: number; json(): { errors: Array<Record<string, unknown>> } }) => ({
    status: res.statusCode,
    ...res.json().errors[0],
  })

  it('refuses a third image upload in an hour with 429 and Retry-After, and takes uploads again in the next hour', async () => {
    const c = await t.newClient()
    expect((await upload(c)).statusCode).toBe(200)
    expect((await upload(c)).statusCode).toBe(200)
    const third = await upload(c)
    expect(refusal(third)).toMatchObject({
      status: 429,
      errorCode: 'validation_error',
      additionalCode: 'QTA-4290',
      additionalInfo: 'limit: 2 image uploads per hour',
    })
    expect(Number(third.headers['retry-after'])).toBeGreaterThan(3000)
    // Another subscription has its own quota.
    expect((await upload(await t.newClient())).statusCode).toBe(200)
    t.clock.advance(3_600_000)
    expect((await upload(c)).statusCode).toBe(200)
  })

  it('refuses uploads past the bytes per hour', async () => {
    const c = await t.newClient()
    expect((await upload(c, 1500)).statusCode).toBe(200)
    expect(refusal(await upload(c, 1000))).toMatchObject({
      status: 429,
      additionalCode: 'QTA-4290',
      additionalInfo: 'limit: 2048 bytes of image uploads per hour',
    })
  })

  it('refuses an upload while the subscription holds its most unattached images (400), until they expire', async () => {
    const c = await t.newClient()
    for (let i = 0; i < 2; i++) expect((await upload(c)).statusCode).toBe(200)
    t.clock.advance(3_600_000)
    expect((await upload(c)).statusCode).toBe(200)
    expect(refusal(await upload(c))).toMatchObject({
      status: 400,
      errorCode: 'validation_error',
      additionalCode: 'QTA-4000',
      additionalInfo: 'limit: 3 unattached images per subscription',
    })
    t.clock.advance(25 * 3_600_000)
    expect((await upload(await t.refresh(c))).statusCode).toBe(200)
  })

  it('refuses a webhook configuration past the most a subscription may have (400), counting both variants, until one is deleted', async () => {
    const c = await t.newClient()
    const tracking = hooks(t, c, 'tracking')
    const locker = hooks(t, c, 'locker')
    const first = await tracking.create(configBody('http://127.0.0.1:9/a'))
    await locker.create(configBody('http://127.0.0.1:9/b', { type: 'locker', events: ['Deposited'] }))
    const third = await tracking.call('POST', '/webhookConfig', configBody('http://127.0.0.1:9/c'))
    expect(refusal(third)).toMatchObject({
      status: 400,
      additionalCode: 'QTA-4000',
      additionalInfo: 'limit: 2 webhook configurations per subscription',
    })
    await tracking.ok('DELETE', `/webhookConfig/${first.webHookConfigID}`)
    await tracking.create(configBody('http://127.0.0.1:9/c'))
  })

  it('lets exactly as many of several racing creates through as the limit has room for', async () => {
    const c = await t.newClient()
    const tracking = hooks(t, c, 'tracking')
    await tracking.create(configBody('http://127.0.0.1:9/a'))
    // One place left: of eight creates sent at once, one succeeds and seven are refused.
    const racing = await Promise.all(
      Array.from({ length: 8 }, (_, i) =>
        tracking.call('POST', '/webhookConfig', configBody(`http://127.0.0.1:9/r${i}`)),
      ),
    )
    expect(racing.map((r) => r.statusCode).sort()).toEqual([200, 400, 400, 400, 400, 400, 400, 400])
    const stored = await t.ctx.db
      .selectFrom('webhook_configs')
      .select('config_id')
      .where('sub_id', '=', c.subId)
      .where('deleted_at', 'is', null)
      .execute()
    expect(stored).toHaveLength(2)
  })

  it('gives a refused amount back to the window it was counted in, never to one that started since', async () => {
    // The window ends between the refused hit and its refund (a request at the edge of the hour).
    class EdgeCounter extends WindowCounter {
      override async hit(key: string, windowMs: number, amount = 1) {
        const counted = await super.hit(key, windowMs, amount)
        if (counted.hits > 3) t.clock.advance(windowMs)
        return counted
      }
    }
    const quota = new WindowQuota(new EdgeCounter(t.ctx.db, t.clock), 'edge units', 3, 60)
    const sub = `sub_edge_${Date.now()}`
    await quota.take(sub, 2)
    await expect(quota.take(sub, 2)).rejects.toMatchObject({ code: 'QUOTA_EXCEEDED' })
    // The new window holds the full quota, not 3 + 2: the refund did not land in it.
    await quota.take(sub, 3)
    await expect(quota.take(sub, 1)).rejects.toMatchObject({ code: 'QUOTA_EXCEEDED' })
  })

  it('refuses a third test send in a minute with 429, and sends again the next minute', async () => {
    const c = await t.newClient()
    const h = hooks(t, c)
    const { webHookConfigID: id } = await h.create(configBody('http://127.0.0.1:9/t'))
    await h.ok('POST', `/webhookConfig/${id}/test`)
    await h.ok('POST', `/webhookConfig/${id}/test`)
    const third = await h.call('POST', `/webhookConfig/${id}/test`)
    expect(refusal(third)).toMatchObject({
      status: 429,
      additionalCode: 'QTA-4290',
      additionalInfo: 'limit: 2 webhook test sends per minute',
    })
    expect(third.headers['retry-after']).toBe('60')
    t.clock.advance(60_000)
    await h.ok('POST', `/webhookConfig/${id}/test`)
  })
})
