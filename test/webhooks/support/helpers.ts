import { Webhook } from 'standardwebhooks'
import { expect, vi } from 'vitest'
import { inTransaction } from '../../../src/platform/db/transaction.js'
import { enqueueEvents } from '../../../src/events/outbox.js'
import { basic, buildTestApp, type TestApp, type TestClient } from '../../support/build-test-app.js'
import { Receiver, type ReceivedRequest } from './receiver.js'

export const MOUNT = { tracking: '/webhooks/tracking', locker: '/webhooks/locker' } as const
export type Variant = keyof typeof MOUNT

/** A valid create body for `url`; override any field. */
export function configBody(url: string, overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    name: 'ERP',
    type: 'tracking',
    events: ['Received', 'Delivered'],
    url,
    timeOut: 5,
    authParams: { authType: 'none' },
    ...overrides,
  }
}

/**
 * The webhook interface of one mount, as a client calls it: with its client credentials (HTTP
 * Basic, which the webhook mounts accept), so tests may move the clock past a token's lifetime.
 */
export function hooks(t: TestApp, client: TestClient, variant: Variant = 'tracking') {
  const base = `${MOUNT[variant]}/api/v1`
  const headers = { authorization: basic(client.clientId, client.clientSecret) }
  const call = (method: 'GET' | 'POST' | 'PUT' | 'DELETE', path: string, payload?: unknown) =>
    t.inject({ method, url: `${base}${path}`, payload: payload as never, headers })
  const ok = async (method: 'GET' | 'POST' | 'PUT' | 'DELETE', path: string, payload?: unknown) => {
    const res = await call(method, path, payload)
    expect(res.statusCode, `${method} ${path}: ${res.body}`).toBe(200)
    return res.json()
  }
  return {
    call,
    ok,
    create: (body: Record<string, unknown>) => ok('POST', '/webhookConfig', { type: variant, ...body }),
    deliveries: async (configId: string, status?: string) =>
      (await ok('GET', `/webhookConfig/${configId}/deliveries${status ? `?status=${status}` : ''}`))
        .deliveries as Array<Record<string, unknown>>,
    attempts: async (configId: string, deliveryId: string) =>
      (await ok('GET', `/webhookConfig/${configId}/deliveries/${deliveryId}/attempts`)).attempts as Array<
        Record<string, unknown>
      >,
  }
}

const sequences = new Map<string, number>()
let n = 0

/** Writes one event into the outbox, as the packages service does (same function, own transaction). */
export async function emit(
  t: TestApp,
  subId: string,
  e: { eventName: string; variant?: Variant; packageId?: string; data?: Record<string, unknown> },
): Promise<{ eventId: string; packageId: string; sequence: number }> {
  const packageId = e.packageId ?? `pkg_test${++n}`
  // Per subscription and package: test files share this module (vitest's isolate: false) and reuse ids.
  const key = `${subId}\u0000${packageId}`
  const sequence = (sequences.get(key) ?? 0) + 1
  sequences.set(key, sequence)
  const eventId = `evt_test${++n}_${Math.random().toString(36).slice(2, 8)}`
  await inTransaction(t.ctx.db, (trx) =>
    enqueueEvents(trx, [
      {
        eventId,
        subId,
        packageId,
        variant: e.variant ?? 'tracking',
        eventName: e.eventName,
        sequence,
        occurredAt: t.clock.now(),
        data: {
          packageId,
          trackingNumber: `1Z${n}`,
          currentStatus: 'RECEIVED',
          previousStatus: null,
          sequence,
          ...e.data,
        },
      },
    ]),
  )
  return { eventId, packageId, sequence }
}

/** Standard Webhooks verification with the library, at the time the service believes it is. */
export function verify(secret: string, req: ReceivedRequest, at: Date): unknown {
  vi.setSystemTime(at)
  try {
    return new Webhook(secret).verify(req.body, req.headers as Record<string, string>)
  } finally {
    vi.useRealTimers()
  }
}

export const HOUR = 3600_000

/** Plain http to 127.0.0.1 allowed, so configurations can point at the test's Receiver. */
export const WEBHOOK_TEST_ENV = { MAILROOM_WEBHOOK_ALLOW_HTTP: 'true', MAILROOM_WEBHOOK_ALLOW_CIDRS: '127.0.0.0/8' }

/** A test app that may deliver to the local Receiver, and that Receiver listening. */
export async function startWebhookTest(env: Record<string, string> = {}): Promise<{ t: TestApp; rx: Receiver }> {
  const t = await buildTestApp({ ...WEBHOOK_TEST_ENV, ...env })
  return { t, rx: await new Receiver().start() }
}

/** Closes what startWebhookTest opened: the outbound pool, the Receiver, the app and its database. */
export async function stopWebhookTest(t: TestApp, rx: Receiver): Promise<void> {
  await t.ctx.webhooks.close()
  await rx.close()
  await t.close()
}
