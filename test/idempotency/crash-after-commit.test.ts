import { sql } from 'kysely'
import { beforeAll, describe, expect, it } from 'vitest'
import { IDEMPOTENCY_ABANDONED_MS } from '../../src/platform/idempotency/hooks.js'
import { useTestApp, useClient } from '../support/use-test-app.js'
import { api, PNG_1PX, trackingNumber } from '../support/factories.js'

// The process dies after a write committed and before its answer was stored under the request's
// Idempotency-Key. A retry, at once or long after (past the abandoned-claim delay), must get the
// original answer with the original ids, and nothing may be written twice.
const t = useTestApp({ MAILROOM_WEBHOOK_ALLOW_HTTP: 'true', MAILROOM_WEBHOOK_ALLOW_CIDRS: '127.0.0.0/8' })
const client = useClient(t)
let h: ReturnType<typeof api>
let ids: Awaited<ReturnType<ReturnType<typeof api>['mailroom']>>
beforeAll(async () => {
  h = api(t, client)
  ids = await h.mailroom()
})

type Service = Record<string, (...args: never[]) => Promise<unknown>>

/**
 * Makes the next call of `service[method]` "kill the process" right after it returned (its
 * transaction committed): the request never goes further (no answer, no onSend hook), like a
 * process killed there. Resolves with what the service returned; the method is then restored,
 * as a restarted process would have it.
 */
function dieAfterCommit(service: object, method: string): Promise<unknown> {
  const s = service as Service
  const original = s[method]!
  return new Promise((committed) => {
    s[method] = async (...args: never[]) => {
      s[method] = original
      committed(await original.apply(service, args))
      return new Promise(() => {})
    }
  })
}

async function count(table: string, column: string, value: string): Promise<number> {
  const r = await sql<{
    n: number
  }>`select count(*)::int as n from ${sql.table(table)} where sub_id = ${client.subId} and ${sql.ref(column)} = ${value}`.execute(
    t.ctx.db,
  )
  return r.rows[0]!.n
}

let k = 0
const cases: Array<{
  label: string
  service: () => object
  method: string
  url: string
  body: () => unknown
  status: number
  id: string
  rows: (answer: Record<string, unknown>) => Promise<number>
}> = [
  {
    label: 'contact',
    service: () => t.ctx.companions.contacts,
    method: 'createContact',
    url: '/api/v1/contacts',
    body: () => ({ contactType: 'RECEIVER', name: 'Crash Contact' }),
    status: 201,
    id: 'contactId',
    rows: () => count('contacts', 'name', 'Crash Contact'),
  },
  {
    label: 'location',
    service: () => t.ctx.companions.locations,
    method: 'createLocation',
    url: '/api/v1/locations',
    body: () => ({
      name: 'Crash Loc',
      address: { line1: '1', city: 'NY', state: 'NY', postalCode: '1', country: 'US' },
      timezone: 'UTC',
    }),
    status: 201,
    id: 'locationId',
    rows: () => count('locations', 'name', 'Crash Loc'),
  },
  {
    label: 'custom field',
    service: () => t.ctx.companions.customFields,
    method: 'createCustomField',
    url: '/api/v1/customfields',
    body: () => ({ name: 'Crash Field', dataType: 'TEXT', required: false }),
    status: 201,
    id: 'customFieldId',
    rows: () => count('custom_fields', 'name', 'Crash Field'),
  },
  {
    label: 'courier',
    service: () => t.ctx.companions.carriers,
    method: 'addCourier',
    url: '/api/v1/carriers/catalog',
    body: () => ({ name: 'Crash Courier' }),
    status: 201,
    id: 'carrierId',
    rows: () => count('carriers', 'name', 'Crash Courier'),
  },
  {
    label: 'site',
    service: () => t.ctx.receiving.sites,
    method: 'createSite',
    url: '/api/v1/inboundsites',
    body: () => ({ type: 'shelf', name: 'Crash Shelf', parent: ids.buildingId }),
    status: 200,
    id: 'inboundSiteId',
    rows: () => count('inbound_sites', 'name', 'Crash Shelf'),
  },
  {
    label: 'image',
    service: () => t.ctx.receiving.images,
    method: 'upload',
    url: '/api/v1/packages/images',
    body: () => ({ base64: PNG_1PX }),
    status: 200,
    id: 'imageId',
    rows: (a) => count('images', 'image_id', a.imageId as string),
  },
  {
    label: 'webhook configuration',
    service: () => t.ctx.webhooks.configs,
    method: 'create',
    url: '/webhooks/tracking/api/v1/webhookConfig',
    body: () => ({
      name: 'Crash Hook',
      type: 'tracking',
      events: ['Received'],
      url: 'http://127.0.0.1:9/hook',
      timeOut: 5,
      authParams: { authType: 'none' },
    }),
    status: 200,
    id: 'webHookConfigID',
    rows: () => count('webhook_configs', 'name', 'Crash Hook'),
  },
  {
    label: 'package (written together)',
    service: () => t.ctx.receiving.packages,
    method: 'addPackage',
    url: '/api/v1/packages',
    body: () => ({ package: { trackingNumber: 'CRASH0001', receiver: { contactId: ids.receiverId } } }),
    status: 201,
    id: 'packageId',
    rows: () => count('packages', 'tracking_number', 'CRASH0001'),
  },
]

describe('a crash between the commit and the stored answer', () => {
  it.each(cases)(
    'a $label: every retry gets the original answer, and it is written once',
    async ({ service, method, url, body, status, id, rows }) => {
      const key = `crash-${++k}`
      const committed = dieAfterCommit(service(), method)
      void h.call('POST', url, body(), { 'idempotency-key': key })
      const original = (await committed) as Record<string, unknown>

      const atOnce = await h.call('POST', url, body(), { 'idempotency-key': key })
      expect(atOnce.statusCode, atOnce.body).toBe(status)
      expect(atOnce.headers['idempotent-replayed']).toBe('true')
      expect(atOnce.json()).toEqual(JSON.parse(JSON.stringify(original)))
      t.clock.advance(IDEMPOTENCY_ABANDONED_MS + 60_000)
      const later = await h.call('POST', url, body(), { 'idempotency-key': key })
      expect(later.statusCode, later.body).toBe(status)
      expect(later.json()[id]).toBe(original[id])
      expect(await rows(original)).toBe(1)
    },
  )

  it("a webhook configuration's replay still shows the signing secret it was created with", async () => {
    const committed = dieAfterCommit(t.ctx.webhooks.configs, 'create')
    const body = {
      name: 'Crash Hook 2',
      type: 'tracking',
      events: ['Received'],
      url: 'http://127.0.0.1:9/hook',
      timeOut: 5,
      authParams: { authType: 'none' },
    }
    void h.call('POST', '/webhooks/tracking/api/v1/webhookConfig', body, { 'idempotency-key': 'crash-hook-2' })
    const original = (await committed) as { signingSecret: string }
    const retry = await h.call('POST', '/webhooks/tracking/api/v1/webhookConfig', body, {
      'idempotency-key': 'crash-hook-2',
    })
    expect(retry.json().signingSecret).toBe(original.signingSecret)
    expect(original.signingSecret).toMatch(/^whsec_/)
    // What the key keeps for the replay is sealed: the secret is nowhere in the database in the clear.
    const stored = await sql<{
      response_body: string
    }>`select response_body from idempotency_keys where idempotency_key = 'crash-hook-2'`.execute(t.ctx.db)
    expect(stored.rows[0]!.response_body).toMatch(/^v1\./)
    expect(stored.rows[0]!.response_body).not.toContain(original.signingSecret)
  })

  it('an answer stored after the response (rotateSecret) is sealed too, and replays', async () => {
    const created = await h.ok(
      'POST',
      '/webhooks/tracking/api/v1/webhookConfig',
      {
        name: 'Seal Hook',
        type: 'tracking',
        events: ['Received'],
        url: 'http://127.0.0.1:9/hook',
        timeOut: 5,
        authParams: { authType: 'none' },
      },
      200,
    )
    const url = `/webhooks/tracking/api/v1/webhookConfig/${created.webHookConfigID}/rotateSecret`
    const first = await h.call('POST', url, undefined, { 'idempotency-key': 'seal-rotate' })
    expect(first.statusCode, first.body).toBe(200)
    const again = await h.call('POST', url, undefined, { 'idempotency-key': 'seal-rotate' })
    expect(again.headers['idempotent-replayed']).toBe('true')
    expect(again.json().signingSecret).toBe(first.json().signingSecret)
    const stored = await sql<{
      response_body: string
    }>`select response_body from idempotency_keys where idempotency_key = 'seal-rotate'`.execute(t.ctx.db)
    expect(stored.rows[0]!.response_body).not.toContain(first.json().signingSecret)
  })

  it('a package with images: the retry gets its packageId and images, not a 409', async () => {
    const image = (await h.ok('POST', '/api/v1/packages/images', { base64: PNG_1PX }, 200)).tempURL
    const body = {
      package: { trackingNumber: 'CRASH0002', receiver: { contactId: ids.receiverId } },
      images: [{ imageLevel: 'ASSET', imageType: 'LABEL', tempURL: image }],
    }
    const committed = dieAfterCommit(t.ctx.receiving.packages, 'addPackage')
    void h.call('POST', '/api/v1/packages', body, { 'idempotency-key': 'crash-images' })
    const original = (await committed) as { packageId: string; images: unknown[] }
    t.clock.advance(IDEMPOTENCY_ABANDONED_MS + 60_000)
    const retry = await h.call('POST', '/api/v1/packages', body, { 'idempotency-key': 'crash-images' })
    expect(retry.statusCode, retry.body).toBe(201)
    expect(retry.json()).toEqual(original)
    expect(original.images).toHaveLength(1)
    expect(await count('packages', 'tracking_number', 'CRASH0002')).toBe(1)
  })

  it('adds written together in one statement each store their own answer with it', async () => {
    const numbers = Array.from({ length: 5 }, () => trackingNumber('1ZCRASH'))
    const packages = t.ctx.receiving.packages as unknown as Service
    const original = packages.addPackage!
    const answers: unknown[] = []
    let all!: () => void
    const done = new Promise<void>((r) => (all = r))
    packages.addPackage = async (...args: never[]) => {
      answers.push(await original.apply(packages, args))
      if (answers.length === numbers.length) all()
      return new Promise(() => {})
    }
    const body = (tn: string) => ({ package: { trackingNumber: tn, receiver: { contactId: ids.receiverId } } })
    // In one turn of the event loop, so the writer gathers them into one statement.
    for (const [i, tn] of numbers.entries())
      void h.call('POST', '/api/v1/packages', body(tn), { 'idempotency-key': `together-${i}` })
    await done
    packages.addPackage = original
    t.clock.advance(IDEMPOTENCY_ABANDONED_MS + 60_000)
    const retries = await Promise.all(
      numbers.map((tn, i) => h.call('POST', '/api/v1/packages', body(tn), { 'idempotency-key': `together-${i}` })),
    )
    expect(retries.map((r) => r.statusCode)).toEqual(numbers.map(() => 201))
    expect(new Set(retries.map((r) => r.json().packageId))).toEqual(
      new Set(answers.map((a) => (a as { packageId: string }).packageId)),
    )
    for (const tn of numbers) expect(await count('packages', 'tracking_number', tn)).toBe(1)
  })

  it('a write refused (a 4xx) stores its answer after the response, as before', async () => {
    const first = await h.call(
      'POST',
      '/api/v1/customfields',
      { name: 'Bad', dataType: 'LIST', required: false },
      { 'idempotency-key': 'refused' },
    )
    expect(first.statusCode).toBe(400)
    const again = await h.call(
      'POST',
      '/api/v1/customfields',
      { name: 'Bad', dataType: 'LIST', required: false },
      { 'idempotency-key': 'refused' },
    )
    expect(again.headers['idempotent-replayed']).toBe('true')
    expect(again.body).toBe(first.body)
  })
})
