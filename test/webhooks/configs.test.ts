import { beforeAll, describe, expect, it } from 'vitest'
import { openAuthSecret } from '../../src/webhooks/delivery/credentials.js'
import { itRefusesBadTokens } from '../support/auth-matrix.js'
import { basic } from '../support/build-test-app.js'
import { useTestApp, useClient } from '../support/use-test-app.js'
import { configBody, hooks, MOUNT } from './support/helpers.js'

const t = useTestApp({ MAILROOM_WEBHOOK_ALLOW_HTTP: 'true', MAILROOM_WEBHOOK_ALLOW_CIDRS: '127.0.0.0/8' })
const me = useClient(t)
const other = useClient(t)
let h: ReturnType<typeof hooks>
const URL_OK = 'http://127.0.0.1:9/hook'
beforeAll(() => {
  h = hooks(t, me)
})

const T = MOUNT.tracking
const L = MOUNT.locker
const cfg = '/api/v1/webhookConfig'

describe('webhook configurations', () => {
  itRefusesBadTokens(
    () => t,
    [
      { method: 'GET', url: `${T}/api/v1/events` },
      { method: 'GET', url: `${T}/api/v1/webhook/events` },
      { method: 'GET', url: `${L}/api/v1/events` },
      { method: 'POST', url: `${T}${cfg}`, payload: configBody(URL_OK) },
      { method: 'GET', url: `${T}${cfg}` },
      { method: 'GET', url: `${T}${cfg}/whk_x` },
      { method: 'PUT', url: `${T}${cfg}/whk_x`, payload: configBody(URL_OK) },
      { method: 'DELETE', url: `${T}${cfg}/whk_x` },
      { method: 'POST', url: `${T}${cfg}/whk_x/rotateSecret` },
      { method: 'POST', url: `${T}${cfg}/whk_x/test` },
      { method: 'GET', url: `${T}${cfg}/whk_x/deliveries` },
      { method: 'POST', url: `${T}${cfg}/whk_x/deliveries/dlv_x/retry` },
      { method: 'GET', url: `${T}${cfg}/whk_x/deliveries/dlv_x/attempts` },
      { method: 'POST', url: `${L}${cfg}`, payload: configBody(URL_OK, { type: 'locker', events: ['Deposited'] }) },
      { method: 'GET', url: `${L}${cfg}/whk_x/deliveries` },
    ],
  )

  it("lists each variant's event catalogue, at both paths", async () => {
    const tracking = await h.ok('GET', '/events')
    expect(tracking.events.map((e: { eventName: string }) => e.eventName)).toEqual([
      'Manifest',
      'Acceptance',
      'InTransit',
      'DeliveryAttempt',
      'OutForDelivery',
      'Delivered',
      'Exception',
      'ReturnToSender',
      'ReadyForPickup',
      'PickupMissed',
      'PickedUp',
      'Received',
      'Archived',
      // Forwarded to an address outside the subscription (issue 30.2).
      'Forwarded',
      'Updated',
      // The recipient notifications (issue 17), for integrations that send SMS or chat messages.
      'RecipientNotified',
      'RecipientReminded',
      'RecipientFinalNotice',
      'RecipientPickupReceipt',
      // A notification failed after its last attempt: an exception (issue 30.3).
      'NotificationFailed',
      // The scan-issues queue of label photos (issue 27).
      'ScanIssueOpened',
      'ScanIssueSettled',
      // A recipient left while parcels waited (issue 28).
      'RecipientDeparted',
      // A shelf audit did not find a parcel: an exception (issue 30.3).
      'MissingFromShelf',
    ])
    expect(tracking.events[0]).toEqual({
      eventId: 'tracking.Manifest',
      eventName: 'Manifest',
      description: expect.any(String),
    })
    expect(await h.ok('GET', '/webhook/events')).toEqual(tracking)
    const locker = await hooks(t, me, 'locker').ok('GET', '/events')
    expect(locker.events.map((e: { eventName: string }) => e.eventName)).toEqual([
      'Deposited',
      'PickedUp',
      'PickupReminder',
      'Expired',
    ])
  })

  it('accepts the client credentials as HTTP Basic too', async () => {
    const res = await t.inject({
      method: 'GET',
      url: `${T}${cfg}`,
      headers: { authorization: basic(me.clientId, me.clientSecret) },
    })
    expect(res.statusCode).toBe(200)
  })

  it('creates, lists, gets, replaces and deletes a configuration', async () => {
    const created = await h.create(
      configBody(URL_OK, {
        name: ' ERP ',
        events: ['Received', 'Delivered', 'Received'],
        authParams: { authType: 'custom', headerName: 'X-Api-Key', apiKey: 'key-0123456789abcd' },
      }),
    )
    expect(created).toEqual({
      webHookConfigID: expect.stringMatching(/^whk_/),
      name: 'ERP',
      type: 'tracking',
      events: ['Received', 'Delivered'],
      url: URL_OK,
      timeOut: 5,
      status: 'active',
      authParams: { authType: 'custom', headerName: 'X-Api-Key', apiKey: '****abcd' },
      signingSecret: expect.stringMatching(/^whsec_[A-Za-z0-9+/]{43}=$/),
      createdAt: t.clock.now().toISOString(),
      updatedAt: t.clock.now().toISOString(),
    })
    expect(Buffer.from(created.signingSecret.slice(6), 'base64')).toHaveLength(32)
    const id = created.webHookConfigID

    const row = await t.ctx.db
      .selectFrom('webhook_configs')
      .select(['auth_secret_sealed', 'signing_secret_sealed', 'auth_public'])
      .where('config_id', '=', id)
      .executeTakeFirstOrThrow()
    expect(JSON.stringify(row)).not.toContain('key-0123456789abcd')
    expect(JSON.stringify(row)).not.toContain(created.signingSecret.slice(6))
    expect(openAuthSecret(t.ctx.secrets.webhookKey, id, row.auth_secret_sealed!)).toBe('key-0123456789abcd')
    // Sealed under the configuration's id: copied into another row, it does not open.
    expect(() => openAuthSecret(t.ctx.secrets.webhookKey, 'whk_other', row.auth_secret_sealed!)).toThrow()

    const got = await h.ok('GET', `/webhookConfig/${id}`)
    expect(got).toMatchObject({
      webHookConfigID: id,
      signingSecret: `****${created.signingSecret.slice(-4)}`,
      authParams: { apiKey: '****abcd' },
      lastDeliveryAt: null,
      failureCount: 0,
    })
    expect(
      (await h.ok('GET', '/webhookConfig')).webhookConfigs.map((c: { webHookConfigID: string }) => c.webHookConfigID),
    ).toContain(id)

    t.clock.advance(1000)
    const replaced = await h.ok(
      'PUT',
      `/webhookConfig/${id}`,
      configBody('http://127.0.0.1:10/other', {
        name: 'ERP 2',
        events: ['Exception'],
        timeOut: 30,
        status: 'in-active',
        authParams: { authType: 'basic', username: 'u', password: 'pw' },
      }),
    )
    expect(replaced).toMatchObject({
      name: 'ERP 2',
      url: 'http://127.0.0.1:10/other',
      events: ['Exception'],
      timeOut: 30,
      status: 'in-active',
      authParams: { authType: 'basic', username: 'u', password: '****' },
      updatedAt: t.clock.now().toISOString(),
    })
    expect(replaced.authParams.apiKey).toBeUndefined()
    expect(replaced.signingSecret).toBe(got.signingSecret)

    expect(await h.ok('DELETE', `/webhookConfig/${id}`)).toEqual({})
    expect((await h.call('GET', `/webhookConfig/${id}`)).statusCode).toBe(404)
    expect((await h.call('DELETE', `/webhookConfig/${id}`)).statusCode).toBe(404)
    expect(
      (await h.ok('GET', '/webhookConfig')).webhookConfigs.map((c: { webHookConfigID: string }) => c.webHookConfigID),
    ).not.toContain(id)
  })

  it('keeps a credential sent back masked, and refuses a mask that matches nothing', async () => {
    const { webHookConfigID: id } = await h.create(
      configBody(URL_OK, {
        authParams: {
          authType: 'oauth2',
          tokenUrl: 'http://127.0.0.1:9/token',
          clientId: 'cid',
          clientSecret: 'secret-0123456789-wxyz',
          scope: 'hooks',
        },
      }),
    )
    const got = await h.ok('GET', `/webhookConfig/${id}`)
    expect(got.authParams).toEqual({
      authType: 'oauth2',
      tokenUrl: 'http://127.0.0.1:9/token',
      clientId: 'cid',
      clientSecret: '****wxyz',
      scope: 'hooks',
    })
    await h.ok('PUT', `/webhookConfig/${id}`, configBody(URL_OK, { name: 'renamed', authParams: got.authParams }))
    const row = await t.ctx.db
      .selectFrom('webhook_configs')
      .select('auth_secret_sealed')
      .where('config_id', '=', id)
      .executeTakeFirstOrThrow()
    expect(openAuthSecret(t.ctx.secrets.webhookKey, id, row.auth_secret_sealed!)).toBe('secret-0123456789-wxyz')

    const wrong = await h.call(
      'PUT',
      `/webhookConfig/${id}`,
      configBody(URL_OK, { authParams: { ...got.authParams, clientSecret: '****nope' } }),
    )
    expect(wrong.statusCode).toBe(400)
    expect(wrong.json().errors[0]).toMatchObject({
      additionalParameters: 'authParams.clientSecret',
      additionalCode: 'WHK-4002',
    })
    const switched = await h.call(
      'PUT',
      `/webhookConfig/${id}`,
      configBody(URL_OK, { authParams: { authType: 'custom', headerName: 'X-Key', apiKey: '****wxyz' } }),
    )
    expect(switched.statusCode).toBe(400)
    expect(switched.json().errors[0].additionalParameters).toBe('authParams.apiKey')
  })

  it('requires the secret itself when the url, tokenUrl or authType changes, so a masked secret never follows a new destination', async () => {
    const sealed = async (id: string) =>
      openAuthSecret(
        t.ctx.secrets.webhookKey,
        id,
        (
          await t.ctx.db
            .selectFrom('webhook_configs')
            .select('auth_secret_sealed')
            .where('config_id', '=', id)
            .executeTakeFirstOrThrow()
        ).auth_secret_sealed!,
      )
    const refusedNaming = async (id: string, body: object, field: string) => {
      const res = await h.call('PUT', `/webhookConfig/${id}`, body)
      expect(res.statusCode).toBe(400)
      expect(res.json().errors).toHaveLength(1)
      expect(res.json().errors[0]).toMatchObject({ additionalParameters: field, additionalCode: 'WHK-4002' })
    }
    const custom = { authType: 'custom', headerName: 'X-Key', apiKey: 'api-key-0001' }
    const { webHookConfigID: a, authParams: shownA } = await h.create(configBody(URL_OK, { authParams: custom }))
    expect(shownA.apiKey).toBe('****0001')
    await refusedNaming(a, configBody('http://127.0.0.1:9/elsewhere', { authParams: shownA }), 'authParams.apiKey')
    expect((await h.ok('GET', `/webhookConfig/${a}`)).url).toBe(URL_OK)
    // With the secret itself the move is fine, and the same mask then keeps it at the new address.
    await h.ok('PUT', `/webhookConfig/${a}`, configBody('http://127.0.0.1:9/elsewhere', { authParams: custom }))
    await h.ok(
      'PUT',
      `/webhookConfig/${a}`,
      configBody('http://127.0.0.1:9/elsewhere', { name: 'renamed', authParams: shownA }),
    )
    expect(await sealed(a)).toBe('api-key-0001')

    const basicAuth = { authType: 'basic', username: 'u', password: 'password-0001' }
    const { webHookConfigID: b, authParams: shownB } = await h.create(configBody(URL_OK, { authParams: basicAuth }))
    await refusedNaming(b, configBody('http://127.0.0.1:9/elsewhere', { authParams: shownB }), 'authParams.password')
    // The same last four characters under another auth type are still no stored secret.
    await refusedNaming(
      b,
      configBody(URL_OK, { authParams: { authType: 'custom', headerName: 'X-Key', apiKey: shownB.password } }),
      'authParams.apiKey',
    )

    const oauth = {
      authType: 'oauth2',
      tokenUrl: 'http://127.0.0.1:9/token',
      clientId: 'cid',
      clientSecret: 'client-secret-0001',
    }
    const { webHookConfigID: c, authParams: shownC } = await h.create(configBody(URL_OK, { authParams: oauth }))
    await refusedNaming(
      c,
      configBody(URL_OK, { authParams: { ...shownC, tokenUrl: 'http://127.0.0.1:9/attacker-token' } }),
      'authParams.clientSecret',
    )
    await refusedNaming(
      c,
      configBody('http://127.0.0.1:9/elsewhere', { authParams: shownC }),
      'authParams.clientSecret',
    )
    expect(await sealed(c)).toBe('client-secret-0001')
    await h.ok('PUT', `/webhookConfig/${c}`, configBody(URL_OK, { name: 'renamed', authParams: shownC }))
    expect(await sealed(c)).toBe('client-secret-0001')
  })

  it('stores a secret that merely begins with ****: only the exact mask a response showed keeps the stored one', async () => {
    const sealed = async (id: string) =>
      openAuthSecret(
        t.ctx.secrets.webhookKey,
        id,
        (
          await t.ctx.db
            .selectFrom('webhook_configs')
            .select('auth_secret_sealed')
            .where('config_id', '=', id)
            .executeTakeFirstOrThrow()
        ).auth_secret_sealed!,
      )
    const { webHookConfigID: id, authParams } = await h.create(
      configBody(URL_OK, { authParams: { authType: 'custom', headerName: 'X-Key', apiKey: '****-starred-key-1234' } }),
    )
    expect(authParams.apiKey).toBe('****1234')
    expect(await sealed(id)).toBe('****-starred-key-1234')
    await h.ok(
      'PUT',
      `/webhookConfig/${id}`,
      configBody(URL_OK, { authParams: { authType: 'custom', headerName: 'X-Key', apiKey: '****1234' } }),
    )
    expect(await sealed(id)).toBe('****-starred-key-1234')
    // Another secret with the same last four characters and the same stars in front is a new secret.
    await h.ok(
      'PUT',
      `/webhookConfig/${id}`,
      configBody(URL_OK, { authParams: { authType: 'custom', headerName: 'X-Key', apiKey: '********1234' } }),
    )
    expect(await sealed(id)).toBe('********1234')
    // A mask-shaped value on create stands for no stored secret: refused, not stored.
    const masked = await h.call(
      'POST',
      '/webhookConfig',
      configBody(URL_OK, { authParams: { authType: 'custom', headerName: 'X-Key', apiKey: '****1234' } }),
    )
    expect(masked.statusCode).toBe(400)
    expect(masked.json().errors[0].additionalParameters).toBe('authParams.apiKey')
  })

  it('rotates the signing secret: shown once, the previous one signs for 24 hours more', async () => {
    const created = await h.create(configBody(URL_OK))
    const rotated = await h.ok('POST', `/webhookConfig/${created.webHookConfigID}/rotateSecret`)
    expect(rotated.signingSecret).toMatch(/^whsec_/)
    expect(rotated.signingSecret).not.toBe(created.signingSecret)
    expect(rotated.previousSecretExpiresAt).toBe(new Date(t.clock.now().getTime() + 24 * 3600_000).toISOString())
    expect((await h.ok('GET', `/webhookConfig/${created.webHookConfigID}`)).signingSecret).toBe(
      `****${rotated.signingSecret.slice(-4)}`,
    )
  })

  it("answers 404 for another subscription's configuration and for the other variant's", async () => {
    const mine = await h.create(configBody(URL_OK))
    const id = mine.webHookConfigID
    const theirs = hooks(t, other)
    for (const [method, path, payload] of [
      ['GET', `/webhookConfig/${id}`],
      ['PUT', `/webhookConfig/${id}`, configBody(URL_OK)],
      ['DELETE', `/webhookConfig/${id}`],
      ['POST', `/webhookConfig/${id}/rotateSecret`],
      ['POST', `/webhookConfig/${id}/test`],
      ['GET', `/webhookConfig/${id}/deliveries`],
      ['POST', `/webhookConfig/${id}/deliveries/dlv_x/retry`],
      ['GET', `/webhookConfig/${id}/deliveries/dlv_x/attempts`],
    ] as const) {
      const res = await theirs.call(method, path, payload)
      expect(res.statusCode, `${method} ${path}`).toBe(404)
      expect(res.json().errors[0]).toMatchObject({ errorCode: 'not_found', additionalCode: 'WHK-4040' })
    }
    expect((await theirs.ok('GET', '/webhookConfig')).webhookConfigs).toEqual([])
    expect((await hooks(t, me, 'locker').call('GET', `/webhookConfig/${id}`)).statusCode).toBe(404)
    expect((await h.ok('GET', `/webhookConfig/${id}`)).webHookConfigID).toBe(id)
  })
})

describe('configuration validation', () => {
  const fieldsOf = (res: { json(): { errors: Array<{ additionalParameters?: string }> } }) =>
    res.json().errors.map((e) => e.additionalParameters)

  it.each([
    ['a name over 50 characters', { name: 'x'.repeat(51) }, 'name'],
    ['an empty name', { name: '' }, 'name'],
    ['a missing name', { name: undefined }, 'name'],
    ['the other variant as type', { type: 'locker' }, 'type'],
    ['an event of the other variant', { events: ['Deposited'] }, 'events[0]'],
    ['an unknown event', { events: ['Received', 'Teleported'] }, 'events[1]'],
    ['no events', { events: [] }, 'events'],
    ['a relative url', { url: '/hook' }, 'url'],
    ['an ftp url', { url: 'ftp://127.0.0.1/x' }, 'url'],
    ['credentials in the url', { url: 'http://u:p@127.0.0.1/x' }, 'url'],
    ['a private address', { url: 'http://10.0.0.1/x' }, 'url'],
    ['the metadata address', { url: 'http://169.254.169.254/latest/meta-data' }, 'url'],
    ['timeOut 0', { timeOut: 0 }, 'timeOut'],
    ['timeOut 31', { timeOut: 31 }, 'timeOut'],
    ['timeOut 2.5', { timeOut: 2.5 }, 'timeOut'],
    ['an unknown status', { status: 'paused' }, 'status'],
    ['no authParams', { authParams: undefined }, 'authParams'],
    ['an unknown authType', { authParams: { authType: 'digest' } }, 'authParams.authType'],
    ['custom without apiKey', { authParams: { authType: 'custom', headerName: 'X-Key' } }, 'authParams.apiKey'],
    ['custom without headerName', { authParams: { authType: 'custom', apiKey: 'k' } }, 'authParams.headerName'],
    [
      'custom on a reserved header',
      { authParams: { authType: 'custom', headerName: 'Content-Type', apiKey: 'k' } },
      'authParams.headerName',
    ],
    [
      'custom on a webhook- header',
      { authParams: { authType: 'custom', headerName: 'webhook-signature', apiKey: 'k' } },
      'authParams.headerName',
    ],
    [
      'an apiKey with a line break',
      { authParams: { authType: 'custom', headerName: 'X-Key', apiKey: 'a\r\nX-Evil: 1' } },
      'authParams.apiKey',
    ],
    ['basic without password', { authParams: { authType: 'basic', username: 'u' } }, 'authParams.password'],
    [
      'basic with a colon in the username',
      { authParams: { authType: 'basic', username: 'u:v', password: 'p' } },
      'authParams.username',
    ],
    [
      'oauth2 without tokenUrl',
      { authParams: { authType: 'oauth2', clientId: 'c', clientSecret: 's' } },
      'authParams.tokenUrl',
    ],
    [
      'oauth2 without clientSecret',
      { authParams: { authType: 'oauth2', tokenUrl: 'http://127.0.0.1/t', clientId: 'c' } },
      'authParams.clientSecret',
    ],
    [
      'oauth2 to a private token endpoint',
      { authParams: { authType: 'oauth2', tokenUrl: 'http://192.168.1.1/t', clientId: 'c', clientSecret: 's' } },
      'authParams.tokenUrl',
    ],
  ])('refuses %s with a 400 naming the field', async (_label, override, field) => {
    const body = configBody(URL_OK, override)
    for (const [k, v] of Object.entries(override)) if (v === undefined) delete body[k]
    const res = await h.call('POST', '/webhookConfig', body)
    expect(res.statusCode, res.body).toBe(400)
    expect(res.json().errors[0].errorCode).toBe('validation_error')
    expect(fieldsOf(res)).toContain(field)
  })

  it('names the refusal of a private address with its own code', async () => {
    const res = await h.call('POST', '/webhookConfig', configBody('http://10.0.0.1/x'))
    expect(res.json().errors[0]).toMatchObject({ additionalCode: 'WHK-4001', additionalParameters: 'url' })
    expect(res.json().errors[0].errorDescription).toContain('private')
  })

  it('reports every problem of a body at once', async () => {
    const res = await h.call(
      'POST',
      '/webhookConfig',
      configBody('http://10.0.0.1/x', { authParams: { authType: 'basic' } }),
    )
    expect(fieldsOf(res).sort()).toEqual(['authParams.password', 'authParams.username', 'url'])
  })

  it('applies the same rules on update', async () => {
    const { webHookConfigID: id } = await h.create(configBody(URL_OK))
    const res = await h.call('PUT', `/webhookConfig/${id}`, configBody('http://10.0.0.1/x'))
    expect(res.statusCode).toBe(400)
    expect(fieldsOf(res)).toEqual(['url'])
  })

  it('defaults timeOut to 5 and status to active', async () => {
    const body = configBody(URL_OK)
    delete body.timeOut
    const created = await h.create(body)
    expect(created).toMatchObject({ timeOut: 5, status: 'active' })
  })
})
