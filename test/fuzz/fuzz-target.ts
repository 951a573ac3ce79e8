import fc from 'fast-check'
import type { InjectOptions } from 'fastify'
import { buildTestApp, type TestApp } from '../support/build-test-app.js'
import { operationsOf, problemsOf, requestsFor, send, type FuzzRequest, type Operation } from './openapi-fuzz.js'
import type { KnownValues, Schema } from './schema-arbitrary.js'

const PNG_1PX =
  'data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg=='

export interface FuzzTarget {
  t: TestApp
  operations: Operation[]
  /** Requests over every operation, in turn. */
  requests: fc.Arbitrary<FuzzRequest>
  close(): Promise<void>
}

/**
 * The real app on a fresh database, with one subscription holding one of everything (so generated
 * requests reach the services, not only the 404s), and request generators for every operation of
 * its own `/openapi.json`.
 */
export async function fuzzTarget(): Promise<FuzzTarget> {
  const t = await buildTestApp({
    MAILROOM_WEBHOOK_ALLOW_HTTP: 'true',
    MAILROOM_WEBHOOK_ALLOW_CIDRS: '127.0.0.0/8',
    RATE_LIMIT_MAX: '10000000',
  })
  const client = await t.newClient()
  const call = async (method: InjectOptions['method'], url: string, payload?: unknown) => {
    const res = await t.inject({ method, url, payload: payload as never, headers: client.auth })
    if (res.statusCode >= 300) throw new Error(`seeding ${method} ${url}: ${res.statusCode} ${res.body}`)
    return res.json()
  }
  const locationId = (
    await call('POST', '/api/v1/locations', {
      name: 'Fuzz HQ',
      address: { line1: '1 Main St', city: 'New York', state: 'NY', postalCode: '10001', country: 'US' },
      timezone: 'America/New_York',
    })
  ).locationId as string
  const siteId = (await call('POST', '/api/v1/inboundsites', { type: 'site', name: 'HQ', locationId, primary: true }))
    .inboundSiteId as string
  const shelfId = (await call('POST', '/api/v1/inboundsites', { type: 'shelf', name: 'Shelf', parent: siteId }))
    .inboundSiteId as string
  const receiverId = (
    await call('POST', '/api/v1/contacts', { contactType: 'ALL', name: 'Ada Lovelace', email: 'ada@example.com' })
  ).contactId as string
  const customFieldId = (
    await call('POST', '/api/v1/customfields', { name: 'Dept', dataType: 'LIST', required: false, options: ['A', 'B'] })
  ).customFieldId as string
  const carrierId = (await call('POST', '/api/v1/carriers/catalog', { name: 'Fuzz Courier' })).carrierId as string
  const image = await call('POST', '/api/v1/packages/images', { base64: PNG_1PX })
  const pkg = await call('POST', '/api/v1/packages', {
    package: {
      trackingNumber: '1ZFUZZ0000000001',
      receiver: { contactId: receiverId },
      sender: { contactId: receiverId },
    },
  })
  const hook = {
    name: 'Fuzz',
    events: ['Received'],
    url: 'http://127.0.0.1:9/hook',
    timeOut: 5,
    authParams: { authType: 'none' },
  }
  const tracking = (await call('POST', '/webhooks/tracking/api/v1/webhookConfig', { ...hook, type: 'tracking' }))
    .webHookConfigID as string
  const locker = (
    await call('POST', '/webhooks/locker/api/v1/webhookConfig', { ...hook, type: 'locker', events: [] }).catch(() => ({
      webHookConfigID: 'whk_none',
    }))
  ).webHookConfigID as string
  const delivery = (await call('POST', `/webhooks/tracking/api/v1/webhookConfig/${tracking}/test`)).deliveryId as
    string | undefined

  const known: KnownValues = {
    locationId: [locationId],
    inboundSiteId: [siteId, shelfId],
    id: [siteId, shelfId],
    parent: [siteId],
    contactId: [receiverId],
    customFieldId: [customFieldId],
    carrierId: [carrierId, 'UPS', 'FedEx'],
    imageId: [image.imageId],
    tempURL: [image.tempURL],
    packageId: [pkg.packageId],
    trackingNumber: ['1ZFUZZ0000000001', '1Z999AA10123456784'],
    webHookConfigID: [tracking, locker],
    deliveryId: delivery ? [delivery] : [],
    type: ['site', 'shelf', 'DETAILED'],
  }
  const doc = (await t.inject({ method: 'GET', url: '/openapi.json' })).json()
  const components = (doc.components?.schemas ?? {}) as Record<string, Schema>
  const operations = operationsOf(doc)
  const creds = {
    bearer: client.token,
    basic: Buffer.from(`${client.clientId}:${client.clientSecret}`).toString('base64'),
  }
  const perOperation = operations.map((op) => requestsFor(op, components, known, creds))
  return {
    t,
    operations,
    requests: fc.nat({ max: perOperation.length - 1 }).chain((i) => perOperation[i]!),
    close: () => t.close(),
  }
}

export interface FuzzReport {
  sent: number
  unsendable: number
  byStatus: Map<number, number>
  failures: Array<{ request: string; problems: string[] }>
}

/** Sends `count` generated requests (several in flight, as clients would) and checks each answer. */
export async function runFuzz(
  target: FuzzTarget,
  count: number,
  seed: number,
  onProgress?: (r: FuzzReport) => void,
): Promise<FuzzReport> {
  const report: FuzzReport = { sent: 0, unsendable: 0, byStatus: new Map(), failures: [] }
  const chunk = 1000
  for (let done = 0; done < count; done += chunk) {
    const batch = fc.sample(target.requests, { numRuns: Math.min(chunk, count - done), seed: seed + done })
    const inFlight = 4
    for (let i = 0; i < batch.length; i += inFlight) {
      await Promise.all(
        batch.slice(i, i + inFlight).map(async (req) => {
          // Tokens last 4 hours of the test clock; writes move nothing, so one token serves the run.
          const res = await send((o) => target.t.inject(o), req)
          if (!res) {
            report.unsendable++
            return
          }
          report.sent++
          report.byStatus.set(res.statusCode, (report.byStatus.get(res.statusCode) ?? 0) + 1)
          const problems = problemsOf(req.op, res)
          if (problems.length) report.failures.push({ request: describe(req, res.statusCode, res.body), problems })
        }),
      )
    }
    onProgress?.(report)
  }
  return report
}

export function describe(req: FuzzRequest, status: number, body: string): string {
  const { method, url, headers, payload } = req.inject as {
    method: string
    url: string
    headers: Record<string, string>
    payload?: string
  }
  const { authorization: _a, ...rest } = headers
  return `${method} ${url.slice(0, 300)} [${req.mutation}] headers=${JSON.stringify(rest).slice(0, 200)} body=${String(payload ?? '').slice(0, 300)} → ${status} ${body.slice(0, 300)}`
}
