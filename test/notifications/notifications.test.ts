import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { api, PNG_1PX, trackingNumber } from '../support/factories.js'
import { useClient, useTestApp } from '../support/use-test-app.js'
import { TestSmtpServer } from './support/smtp.js'

const HOUR = 3600_000

describe('notification emails through a real SMTP server', () => {
  const smtp = new TestSmtpServer()
  const env: Record<string, string> = { MAILROOM_PUBLIC_URL: 'https://mailroom.example.test' }
  beforeAll(async () => {
    await smtp.start()
    env.SMTP_URL = smtp.url
  })
  afterAll(() => smtp.close())
  const t = useTestApp(env)
  const client = useClient(t)
  let a: ReturnType<typeof api>
  let room: Awaited<ReturnType<ReturnType<typeof api>['mailroom']>>
  let carrierId: string

  beforeAll(async () => {
    a = api(t, client)
    room = await a.mailroom()
    const carriers = await a.ok('GET', '/api/v1/carriers/catalog')
    carrierId = (carriers.carriers as Array<{ carrierId: string; name: string }>).find(
      (c) => c.name === 'UPS',
    )!.carrierId
  })

  const settings = (over: Record<string, unknown>) => ({
    enabled: true,
    arrivalBatchSeconds: 0,
    reminderAfterHours: [],
    finalNoticeAfterHours: null,
    templates: {},
    ...over,
  })
  const addFor = async (receiverId: string, n = trackingNumber('1ZNTF')) => {
    const body = await a.ok('POST', '/api/v1/packages', {
      package: {
        trackingNumber: n,
        carrier: { carrierId },
        sender: { contactId: room.senderId },
        receiver: { contactId: receiverId },
      },
      lastActivity: { status: 'RECEIVED', location: { inboundSiteId: room.shelfId } },
    })
    return body.packageId as string
  }
  const list = async (query: string) =>
    (await a.ok('GET', `/api/v1/notifications?${query}`)).notifications as Array<Record<string, unknown>>

  it('answers the defaults, and refuses bad settings with 400 naming the field', async () => {
    expect(await a.ok('GET', '/api/v1/notifications/settings')).toEqual({
      enabled: true,
      arrivalBatchSeconds: 60,
      reminderAfterHours: [],
      perishableReminderAfterHours: null,
      finalNoticeAfterHours: null,
      language: 'en',
      templates: {},
    })
    const bad = async (body: unknown) => {
      const res = await a.call('PUT', '/api/v1/notifications/settings', body)
      expect(res.statusCode, res.body).toBe(400)
      return (res.json().errors as Array<{ additionalParameters: string }>).map((e) => e.additionalParameters)
    }
    expect(await bad(settings({ arrivalBatchSeconds: -1 }))).toContain('arrivalBatchSeconds')
    expect(await bad(settings({ reminderAfterHours: [0] }))).toContain('reminderAfterHours[0]')
    expect(await bad(settings({ reminderAfterHours: [2, 1] }))).toEqual(['reminderAfterHours[1]'])
    expect(await bad(settings({ reminderAfterHours: [2], finalNoticeAfterHours: 1 }))).toEqual([
      'finalNoticeAfterHours',
    ])
    expect(await bad(settings({ templates: { ARRIVAL: { html: '<p>{{{recipientName}}}</p>' } } }))).toEqual([
      'templates.ARRIVAL.html',
    ])
    expect(await bad(settings({ templates: { REMINDER: { subject: '{{#packages}}' } } }))).toEqual([
      'templates.REMINDER.subject',
    ])
    expect(await bad(settings({ templates: { SOMETHING: {} } }))).toContain('templates.SOMETHING')
    expect(await bad(settings({ templates: { fr: { ARRIVAL: { html: '{{& recipientName}}' } } } }))).toEqual([
      'templates.fr.ARRIVAL.html',
    ])
    expect(await bad(settings({ templates: { fr: { PARCEL: {} } } }))).toContain('templates.fr.PARCEL')
    expect(await bad(settings({ language: 'French' }))).toContain('language')
    const { enabled: _e, ...missing } = settings({})
    expect(await bad(missing)).toContain('enabled')
  })

  it('emails an arrival at once when batching is off, HTML and text, with RFC 8058 headers', async () => {
    await a.ok('PUT', '/api/v1/notifications/settings', settings({}))
    smtp.clear()
    const stop = t.ctx.notifications.start()
    try {
      const number = trackingNumber('1ZFAST')
      const packageId = await addFor(room.receiverId, number)
      // The service's clock (the test's ManualClock) stands still: the email went out without any
      // batch window passing, which is what "at once" means; how fast is a benchmark's question.
      const [got] = await smtp.waitFor(1, 20_000)
      const mail = got!.mail
      expect(mail.to && 'text' in mail.to ? mail.to.text : '').toContain('ada@example.com')
      expect(mail.subject).toBe('A parcel is waiting for you at HQ 1'.replace('HQ 1', mail.subject!.split(' at ')[1]!))
      expect(mail.text).toContain(number)
      expect(mail.text).toContain('UPS')
      expect(mail.text).toContain('Acme Supplies')
      expect(mail.html).toContain(number)
      // The server answered before the worker recorded it.
      await expect.poll(async () => (await list(`packageId=${packageId}`))[0]!.status).toBe('sent')
      const [n] = await list(`packageId=${packageId}`)
      expect(n).toMatchObject({
        kind: 'ARRIVAL',
        channel: 'email',
        to: 'ada@example.com',
        status: 'sent',
        attempts: 1,
        packageIds: [packageId],
      })
      expect(mail.messageId).toBe(`<${n!.notificationId as string}@mailroom.example.test>`)
      const header = (key: string) => mail.headerLines.find((h) => h.key === key)?.line ?? ''
      expect(header('list-unsubscribe-post')).toBe('List-Unsubscribe-Post: List-Unsubscribe=One-Click')
      expect(header('list-unsubscribe')).toMatch(
        /<https:\/\/mailroom\.example\.test\/notifications\/unsubscribe\?t=[^>]+>/,
      )
    } finally {
      await stop()
    }
  })

  it('batches 5 arrivals for one recipient into one email listing every parcel', async () => {
    await a.ok('PUT', '/api/v1/notifications/settings', settings({ arrivalBatchSeconds: 60 }))
    const bob = await a.contact('RECEIVER', 'Bob Batch', { email: 'bob@example.com' })
    smtp.clear()
    const numbers = Array.from({ length: 5 }, () => trackingNumber('1ZBATCH'))
    const ids: string[] = []
    for (const n of numbers) {
      ids.push(await addFor(bob, n))
      t.clock.advance(5_000)
    }
    expect((await t.ctx.notifications.runOnce()).sent).toBe(0)
    t.clock.advance(40_000)
    expect((await t.ctx.notifications.runOnce()).sent).toBe(1)
    const [got] = await smtp.waitFor(1)
    expect(got!.mail.subject).toMatch(/^5 parcels are waiting for you/)
    for (const n of numbers) expect(got!.mail.text).toContain(n)
    const sent = await list(`contactId=${bob}`)
    expect(sent).toHaveLength(1)
    expect(sent[0]!.packageIds).toEqual(ids)
    // The batch left: the next arrival opens another.
    await addFor(bob)
    t.clock.advance(61_000)
    expect((await t.ctx.notifications.runOnce()).sent).toBe(1)
    expect(await list(`contactId=${bob}`)).toHaveLength(2)
  })

  it('reminds at fractional hours, each step once, then a final notice; none once collected', async () => {
    await a.ok(
      'PUT',
      '/api/v1/notifications/settings',
      settings({ reminderAfterHours: [0.5, 1.25], finalNoticeAfterHours: 2.5 }),
    )
    const rita = await a.contact('RECEIVER', 'Rita Remind', { email: 'rita@example.com' })
    const kept = await addFor(rita)
    const collected = await addFor(rita)
    await t.ctx.notifications.runOnce()
    const kinds = async () =>
      (await list(`contactId=${rita}`)).map((n) => `${n.kind as string}${n.step ? `:${n.step as number}` : ''}`)
    expect(await kinds()).toEqual(['ARRIVAL'])
    t.clock.advance(0.45 * HOUR)
    await t.ctx.notifications.runOnce()
    expect(await kinds()).toEqual(['ARRIVAL'])
    t.clock.advance(0.1 * HOUR)
    smtp.clear()
    // Two processes' jobs at once: one reminder.
    await Promise.all([t.ctx.notifications.runOnce(), t.ctx.notifications.runOnce()])
    expect(await kinds()).toEqual(['REMINDER:1', 'ARRIVAL'])
    // Ada's parcel of the first test is due too (the settings are the subscription's).
    const reminders = (await smtp.waitFor(2)).filter((m) => m.mail.text?.startsWith('Hello Rita'))
    expect(reminders).toHaveLength(1)
    expect(reminders[0]!.mail.subject).toMatch(/^Reminder: 2 parcels/)
    await t.ctx.notifications.runOnce()
    expect(await kinds()).toHaveLength(2)
    await a.ok('PUT', `/api/v1/packages/${collected}`, {
      package: { givenTo: { contactId: rita } },
      lastActivity: { status: 'DELIVERED' },
    })
    t.clock.advance(0.75 * HOUR)
    await t.ctx.notifications.runOnce()
    const all = await list(`contactId=${rita}`)
    const step2 = all.find((n) => n.kind === 'REMINDER' && n.step === 2)!
    expect(step2.packageIds).toEqual([kept])
    t.clock.advance(2 * HOUR)
    // Tokens last 4 hours of the test clock.
    a = api(t, await t.refresh(client))
    await t.ctx.notifications.runOnce()
    expect((await kinds()).filter((k) => k === 'FINAL_NOTICE')).toHaveLength(1)

    // After downtime: the latest step due, once, not every step missed.
    const late = await a.contact('RECEIVER', 'Lou Late', { email: 'lou@example.com' })
    await addFor(late)
    await t.ctx.notifications.runOnce()
    t.clock.advance(1.5 * HOUR)
    a = api(t, await t.refresh(client))
    await t.ctx.notifications.runOnce()
    await t.ctx.notifications.runOnce()
    expect((await list(`contactId=${late}`)).map((n) => [n.kind, n.step])).toEqual([
      ['REMINDER', 2],
      ['ARRIVAL', undefined],
    ])
  })

  it('emails a PICKED_UP receipt when a package is marked DELIVERED, and publishes webhook events', async () => {
    await a.ok('PUT', '/api/v1/notifications/settings', settings({}))
    const pia = await a.contact('RECEIVER', 'Pia Pickup', { email: 'pia@example.com' })
    const friend = await a.contact('ALL', 'Fred Friend')
    const packageId = await addFor(pia)
    await t.ctx.notifications.runOnce()
    smtp.clear()
    await a.ok('PUT', `/api/v1/packages/${packageId}`, {
      package: { givenTo: { contactId: friend } },
      lastActivity: { status: 'DELIVERED' },
    })
    expect((await t.ctx.notifications.runOnce()).sent).toBe(1)
    const [got] = await smtp.waitFor(1)
    expect(got!.mail.subject).toBe('Your parcel was collected')
    expect(got!.mail.text).toContain('by Fred Friend')
    const events = await t.ctx.db
      .selectFrom('package_events')
      .select(['event_name', 'data'])
      .where('package_id', '=', packageId)
      .where('event_name', 'like', 'Recipient%')
      .orderBy('sequence')
      .execute()
    expect(events.map((e) => e.event_name)).toEqual(['RecipientNotified', 'RecipientPickupReceipt'])
    expect(events[1]!.data).toMatchObject({
      packageId,
      notification: { kind: 'PICKED_UP', status: 'sent', contact: { contactId: pia, email: 'pia@example.com' } },
    })
  })

  it('names who collected on the recipient’s behalf in the receipt and its events: a name given at the desk, another contact', async () => {
    await a.ok('PUT', '/api/v1/notifications/settings', settings({}))
    const ben = await a.contact('RECEIVER', 'Ben Behalf', { email: 'ben@example.com' })
    const neighbour = await a.contact('ALL', 'Nora Neighbour')
    const first = await addFor(ben)
    const second = await addFor(ben)
    await t.ctx.notifications.runOnce()
    smtp.clear()
    const receipt = async () => {
      expect((await t.ctx.notifications.runOnce()).sent).toBe(1)
      const [got] = await smtp.waitFor(1)
      smtp.clear()
      return got!.mail
    }
    const event = async (packageId: string) =>
      (
        await t.ctx.db
          .selectFrom('package_events')
          .select('data')
          .where('package_id', '=', packageId)
          .where('event_name', '=', 'RecipientPickupReceipt')
          .executeTakeFirstOrThrow()
      ).data as { notification: Record<string, unknown> }

    await a.ok(
      'POST',
      '/api/v1/pickups',
      { contactId: ben, packageIds: [first], givenTo: { name: 'Gus Guest' }, typedSignature: 'Gus Guest' },
      201,
    )
    const byName = await receipt()
    expect(byName.text).toContain('collected by Gus Guest on your behalf')
    expect(byName.html).toContain('by <strong>Gus Guest</strong> on your behalf')
    expect(byName.text).not.toContain('by Ben Behalf')
    expect((await event(first)).notification.collectedBy).toEqual({
      name: 'Gus Guest',
      onBehalfOf: { contactId: ben, name: 'Ben Behalf' },
    })

    await a.ok(
      'POST',
      '/api/v1/pickups',
      { contactId: ben, givenTo: { contactId: neighbour }, typedSignature: 'Nora Neighbour' },
      201,
    )
    const byContact = await receipt()
    expect(byContact.text).toContain('collected by Nora Neighbour on your behalf')
    expect((await event(second)).notification.collectedBy).toEqual({
      name: 'Nora Neighbour',
      contactId: neighbour,
      onBehalfOf: { contactId: ben, name: 'Ben Behalf' },
    })
  })

  it('shows the address mailed at send time, not the one the row was written with', async () => {
    await a.ok('PUT', '/api/v1/notifications/settings', settings({ arrivalBatchSeconds: 60 }))
    const mo = await a.contact('RECEIVER', 'Mo Moved', { email: 'mo.old@example.com' })
    const packageId = await addFor(mo)
    // The worker gathers the arrival into its email (due in 60 s), written with the address of now.
    expect((await t.ctx.notifications.runOnce()).sent).toBe(0)
    expect((await list(`packageId=${packageId}`))[0]!.to).toBe('mo.old@example.com')
    const contact = await a.ok('GET', `/api/v1/contacts/${mo}`)
    const { contactId: _id, ...rest } = contact
    await a.ok('PUT', `/api/v1/contacts/${mo}`, { ...rest, email: 'mo.new@example.com' }, 200)
    smtp.clear()
    t.clock.advance(61_000)
    expect((await t.ctx.notifications.runOnce()).sent).toBe(1)
    const [got] = await smtp.waitFor(1)
    expect(got!.mail.to && 'text' in got!.mail.to ? got!.mail.to.text : '').toContain('mo.new@example.com')
    expect((await list(`packageId=${packageId}`))[0]).toMatchObject({ status: 'sent', to: 'mo.new@example.com' })
    const event = await t.ctx.db
      .selectFrom('package_events')
      .select('data')
      .where('package_id', '=', packageId)
      .where('event_name', '=', 'RecipientNotified')
      .executeTakeFirstOrThrow()
    expect((event.data as { notification: { to: string } }).notification.to).toBe('mo.new@example.com')
  })

  it('says the opening hours of the site in the arrival email, the nearest set above the shelf', async () => {
    await a.ok('PUT', '/api/v1/notifications/settings', settings({}))
    const oli = await a.contact('RECEIVER', 'Oli Open', { email: 'oli@example.com' })
    await a.ok('PUT', `/api/v1/inboundsites/${room.siteId}`, { openingHours: 'Mon–Fri 8:00–18:00 <b>' }, 200)
    try {
      smtp.clear()
      await addFor(oli)
      expect((await t.ctx.notifications.runOnce()).sent).toBe(1)
      const [got] = await smtp.waitFor(1)
      expect(got!.mail.text).toContain('Opening hours: Mon–Fri 8:00–18:00 <b>')
      expect(got!.mail.html).toContain('Opening hours: Mon–Fri 8:00–18:00 &lt;b&gt;')
    } finally {
      await a.ok('PUT', `/api/v1/inboundsites/${room.siteId}`, { openingHours: null }, 200)
    }
    smtp.clear()
    await addFor(oli)
    await t.ctx.notifications.runOnce()
    const [without] = await smtp.waitFor(1)
    expect(without!.mail.text).not.toContain('Opening hours')
  })

  it('writes in the subscription’s language: its templates for that language, then its defaults, then the shipped ones', async () => {
    const put = {
      ...settings({}),
      language: 'fr',
      templates: {
        ARRIVAL: { subject: 'Default subject {{count}}', text: 'Default text for {{recipientName}}' },
        fr: { ARRIVAL: { subject: 'Colis pour {{recipientName}}' } },
      },
    }
    // Left out, the perishables' sooner reminder is unset.
    const saved = { ...put, perishableReminderAfterHours: null }
    expect(await a.ok('PUT', '/api/v1/notifications/settings', put, 200)).toEqual(saved)
    expect(await a.ok('GET', '/api/v1/notifications/settings')).toEqual(saved)
    const flo = await a.contact('RECEIVER', 'Flo French', { email: 'flo@example.com' })
    try {
      smtp.clear()
      await addFor(flo)
      await t.ctx.notifications.runOnce()
      const [arrival] = await smtp.waitFor(1)
      // The French subject, the default language's text, the shipped French HTML.
      expect(arrival!.mail.subject).toBe('Colis pour Flo French')
      expect(arrival!.mail.text).toBe('Default text for Flo French')
      expect(arrival!.mail.html).toContain('Bonjour Flo French')
      expect(arrival!.mail.html).toContain('Se désabonner')
      smtp.clear()
      await a.ok('POST', '/api/v1/pickups', { contactId: flo, typedSignature: 'Flo French' }, 201)
      await t.ctx.notifications.runOnce()
      const [receipt] = await smtp.waitFor(1)
      expect(receipt!.mail.subject).toBe('Votre colis a été retiré')
      expect(receipt!.mail.text).toContain('par Flo French')
      // A language without shipped templates falls back to English.
      await a.ok('PUT', '/api/v1/notifications/settings', { ...settings({}), language: 'de' }, 200)
      smtp.clear()
      await addFor(flo)
      await t.ctx.notifications.runOnce()
      expect((await smtp.waitFor(1))[0]!.mail.subject).toMatch(/^A parcel is waiting for you/)
    } finally {
      await a.ok('PUT', '/api/v1/notifications/settings', settings({}), 200)
    }
  })

  it('writes to a contact in its own language, over the subscription’s; null goes back to the subscription’s', async () => {
    // The subscription (English) overrides its arrival subject: in English, for English emails only.
    const english = { ...settings({}), templates: { ARRIVAL: { subject: 'Parcels for {{recipientName}}' } } }
    await a.ok('PUT', '/api/v1/notifications/settings', english, 200)
    const camille = await a.contact('RECEIVER', 'Camille Martin', { email: 'camille@example.com', language: 'fr' })
    expect((await a.ok('GET', `/api/v1/contacts/${camille}`)).language).toBe('fr')
    smtp.clear()
    await addFor(camille)
    await t.ctx.notifications.runOnce()
    const [french] = await smtp.waitFor(1)
    expect(french!.mail.html).toContain('Bonjour Camille Martin')
    expect(french!.mail.subject).not.toBe('Parcels for Camille Martin')
    // Back to the subscription's (English) language.
    expect((await a.ok('PUT', `/api/v1/contacts/${camille}`, { language: null })).language).toBeUndefined()
    smtp.clear()
    await addFor(camille)
    await t.ctx.notifications.runOnce()
    expect((await smtp.waitFor(1))[0]!.mail.subject).toBe('Parcels for Camille Martin')
    await a.ok('PUT', '/api/v1/notifications/settings', settings({}), 200)
    // Not a language tag: a 400 naming the field.
    const bad = await a.call('PUT', `/api/v1/contacts/${camille}`, { language: 'French' })
    expect(bad.statusCode).toBe(400)
    expect(bad.json().errors[0].additionalParameters).toBe('language')
  })

  it('sends no arrival email for a parcel collected before its batch left: only the receipt', async () => {
    await a.ok('PUT', '/api/v1/notifications/settings', settings({ arrivalBatchSeconds: 60 }))
    const quick = await a.contact('RECEIVER', 'Quinn Quick', { email: 'quinn@example.com' })
    const packageId = await addFor(quick)
    await a.ok('PUT', `/api/v1/packages/${packageId}`, { package: {}, lastActivity: { status: 'DELIVERED' } })
    smtp.clear()
    t.clock.advance(61_000)
    await t.ctx.notifications.runOnce()
    expect(await list(`packageId=${packageId}`)).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ kind: 'ARRIVAL', status: 'suppressed' }),
        expect.objectContaining({ kind: 'PICKED_UP', status: 'sent' }),
      ]),
    )
    const [got] = await smtp.waitFor(1)
    expect(got!.mail.subject).toBe('Your parcel was collected')
    expect(smtp.received).toHaveLength(1)
  })

  it('shows the pickup code and its QR code in the arrival email; a pickup of 3 parcels by code is one PICKED_UP email', async () => {
    await a.ok('PUT', '/api/v1/notifications/settings', settings({ arrivalBatchSeconds: 30 }))
    const cleo = await a.contact('RECEIVER', 'Cleo Code', { email: 'cleo@example.com' })
    const ids = [await addFor(cleo), await addFor(cleo), await addFor(cleo)]
    const code = (await a.ok('GET', `/api/v1/packages/${ids[0]!}?type=DETAILED`)).pickupCode as string
    expect(code).toMatch(/^[0-9A-Z]{6}$/)
    smtp.clear()
    t.clock.advance(31_000)
    expect((await t.ctx.notifications.runOnce()).sent).toBe(1)
    const arrival = (await smtp.waitFor(1))[0]!.mail
    expect(arrival.subject).toMatch(/^3 parcels are waiting/)
    expect(arrival.text).toContain(`Your pickup code: ${code}`)
    const qr = arrival.attachments.find((f) => f.contentType === 'image/png')!
    // An inline part of the HTML (mailparser puts it in the HTML as a data: URI).
    expect(qr.related).toBe(true)
    expect(arrival.html).toContain(`alt="QR code of pickup code ${code}"`)
    expect(arrival.text).toMatch(/Please collect them at HQ \d+, Building A\./)

    smtp.clear()
    const signature = (await a.ok('POST', '/api/v1/packages/images', { base64: PNG_1PX }, 200)).tempURL as string
    const res = await a.call('POST', '/api/v1/pickups', {
      pickupCode: code,
      images: [{ imageType: 'SIGNATURE', tempURL: signature }],
    })
    expect(res.statusCode, res.body).toBe(201)
    expect((await t.ctx.notifications.runOnce()).sent).toBe(1)
    const [got] = await smtp.waitFor(1)
    expect(got!.mail.subject).toBe('Your 3 parcels were collected')
    expect(got!.mail.text).toContain('by Cleo Code')
    const receipts = (await list(`contactId=${cleo}`)).filter((n) => n.kind === 'PICKED_UP')
    expect(receipts).toHaveLength(1)
    expect([...(receipts[0]!.packageIds as string[])].sort()).toEqual([...ids].sort())
  })

  it('unsubscribes with the one-click POST of the List-Unsubscribe header; a GET only asks', async () => {
    await a.ok('PUT', '/api/v1/notifications/settings', settings({}))
    const una = await a.contact('RECEIVER', 'Una Unsub', { email: 'una@example.com' })
    await addFor(una)
    smtp.clear()
    await t.ctx.notifications.runOnce()
    const [got] = await smtp.waitFor(1)
    const header = got!.mail.headerLines.find((h) => h.key === 'list-unsubscribe')!.line
    const url = new URL(/<([^>]+)>/.exec(header)![1]!)
    const path = `${url.pathname}${url.search}`
    const page = await t.inject({ method: 'GET', url: path })
    expect(page.statusCode).toBe(200)
    expect(page.headers['content-type']).toMatch(/^text\/html/)
    expect(page.body).toContain('<form method="post"')
    // The page's own form may post (a browser enforces form-action); nothing else loads or frames it.
    const csp = String(page.headers['content-security-policy'])
    expect(csp).toContain("form-action 'self'")
    expect(csp).toContain("default-src 'none'")
    expect(csp).toContain("frame-ancestors 'none'")
    expect((await a.ok('GET', `/api/v1/contacts/${una}`)).notify).toBe(true)
    const forged = await t.inject({
      method: 'POST',
      url: `${url.pathname}?t=${url.searchParams.get('t')!.replace(/.$/, (c) => (c === 'A' ? 'B' : 'A'))}`,
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      payload: 'List-Unsubscribe=One-Click',
    })
    expect(forged.statusCode).toBe(400)
    const done = await t.inject({
      method: 'POST',
      url: path,
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      payload: 'List-Unsubscribe=One-Click',
    })
    expect(done.statusCode).toBe(200)
    expect((await a.ok('GET', `/api/v1/contacts/${una}`)).notify).toBe(false)
    smtp.clear()
    const next = await addFor(una)
    await t.ctx.notifications.runOnce()
    expect(smtp.received).toHaveLength(0)
    expect(await list(`packageId=${next}`)).toMatchObject([
      { status: 'suppressed', lastError: 'the contact unsubscribed' },
    ])
  })

  it('limits the unsubscribe link per client address, apart from the global limit', async () => {
    const from = (remoteAddress: string) =>
      t.inject({
        method: 'POST',
        url: '/notifications/unsubscribe?t=not-a-token',
        remoteAddress,
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        payload: 'List-Unsubscribe=One-Click',
      })
    const answers = []
    for (let i = 0; i < 12; i++) answers.push((await from('192.0.2.7')).statusCode)
    expect(answers.slice(0, 10)).toEqual(Array(10).fill(400))
    expect(answers.slice(10)).toEqual([429, 429])
    const limited = await from('192.0.2.7')
    expect(limited.headers['retry-after']).toBeDefined()
    expect(limited.json().errors[0].errorCode).toBe('validation_error')
    // Another address is not held back.
    expect((await from('192.0.2.8')).statusCode).toBe(400)
  })

  it('retries with back-off when the SMTP server refuses, and records the error', async () => {
    await a.ok('PUT', '/api/v1/notifications/settings', settings({}))
    const rex = await a.contact('RECEIVER', 'Rex Retry', { email: 'rex@example.com' })
    const packageId = await addFor(rex)
    let refusals = 1
    smtp.hold = async () => {
      if (refusals-- > 0) throw new Error('mailbox busy')
    }
    try {
      smtp.clear()
      expect((await t.ctx.notifications.runOnce()).retrying).toBe(1)
      const [n] = await list(`packageId=${packageId}`)
      expect(n).toMatchObject({ status: 'pending', attempts: 1 })
      expect(n!.lastError).toMatch(/mailbox busy/)
      expect((await t.ctx.notifications.runOnce()).sent).toBe(0)
      // NOTIFY_RETRY_BASE_SECONDS (30): the first retry comes 15–30 s later.
      t.clock.advance(31_000)
      expect((await t.ctx.notifications.runOnce()).sent).toBe(1)
      expect(await list(`packageId=${packageId}`)).toMatchObject([{ status: 'sent', attempts: 2 }])
      expect(smtp.received).toHaveLength(1)
    } finally {
      smtp.hold = undefined
    }
  })

  it('resends with the same Message-ID', async () => {
    const [n] = await list(`contactId=${room.receiverId}&status=sent`)
    smtp.clear()
    const res = await a.ok('POST', `/api/v1/notifications/${n!.notificationId as string}/resend`, undefined, 200)
    expect(res.status).toBe('pending')
    await t.ctx.notifications.runOnce()
    const [got] = await smtp.waitFor(1)
    expect(got!.mail.messageId).toBe(`<${n!.notificationId as string}@mailroom.example.test>`)
    expect((await a.call('POST', '/api/v1/notifications/ntf_nope/resend')).statusCode).toBe(404)
  })

  it('resends an arrival email as it was while a new batch is open for the same recipient, and the batch stays its own', async () => {
    await a.ok('PUT', '/api/v1/notifications/settings', settings({ arrivalBatchSeconds: 60 }))
    const rae = await a.contact('RECEIVER', 'Rae Resend', { email: 'rae@example.com' })
    const [firstNumber, secondNumber] = [trackingNumber('1ZRSA'), trackingNumber('1ZRSB')]
    const first = await addFor(rae, firstNumber)
    await t.ctx.notifications.runOnce()
    t.clock.advance(61_000)
    await t.ctx.notifications.runOnce()
    const [sent] = await list(`packageId=${first}`)
    expect(sent).toMatchObject({ kind: 'ARRIVAL', status: 'sent' })
    const id = sent!.notificationId as string
    // A second parcel opens Rae's next batch (due a minute later); then the clerk resends the first email.
    const second = await addFor(rae, secondNumber)
    await t.ctx.notifications.runOnce()
    smtp.clear()
    const res = await a.call('POST', `/api/v1/notifications/${id}/resend`)
    expect(res.statusCode, res.body).toBe(200)
    await t.ctx.notifications.runOnce()
    const [again] = await smtp.waitFor(1)
    expect(again!.mail.messageId).toBe(`<${id}@mailroom.example.test>`)
    expect(again!.mail.text).toContain(firstNumber)
    expect(again!.mail.text).not.toContain(secondNumber)
    // The second parcel goes out in its own email when its batch is due.
    t.clock.advance(61_000)
    await t.ctx.notifications.runOnce()
    const [next] = await list(`packageId=${second}`)
    expect(next).toMatchObject({ kind: 'ARRIVAL', status: 'sent', packageIds: [second] })
    expect(next!.notificationId).not.toBe(id)
    expect(await list(`packageId=${first}`)).toMatchObject([{ notificationId: id, packageIds: [first] }])
  })

  it('does not take a notification from a worker that is sending it, and gives a failed one a fresh budget', async () => {
    const [n] = await list(`contactId=${room.receiverId}&status=sent`)
    const id = n!.notificationId as string
    // A worker's claim: leased until a minute from now.
    await t.ctx.db
      .updateTable('notifications')
      .set({
        status: 'failed',
        attempts: 8,
        locked_by: 'another-worker',
        locked_until: new Date(t.clock.now().getTime() + 60_000),
      })
      .where('notification_id', '=', id)
      .execute()
    const busy = await a.call('POST', `/api/v1/notifications/${id}/resend`)
    expect(busy.statusCode).toBe(409)
    expect(busy.json().errors[0].additionalCode).toBe('NTF-4090')
    // Once the lease is over, it is due again with its attempts counted afresh.
    t.clock.advance(61_000)
    const res = await a.ok('POST', `/api/v1/notifications/${id}/resend`, undefined, 200)
    expect(res).toMatchObject({ status: 'pending', attempts: 0 })
  })
})

describe('without SMTP', () => {
  const t = useTestApp()
  const client = useClient(t)

  it('records notifications as suppressed, never an error', async () => {
    const a = api(t, client)
    const room = await a.mailroom()
    await a.ok('PUT', '/api/v1/notifications/settings', {
      enabled: true,
      arrivalBatchSeconds: 0,
      reminderAfterHours: [],
      finalNoticeAfterHours: null,
      templates: {},
    })
    const number = trackingNumber('1ZNOSMTP')
    const res = await a.ok('POST', '/api/v1/packages', {
      package: { trackingNumber: number, receiver: { contactId: room.receiverId } },
    })
    // A write that is refused writes no notification either (the outbox is in its transaction).
    const again = await a.call('POST', '/api/v1/packages', {
      package: { trackingNumber: number, receiver: { contactId: room.receiverId } },
    })
    expect(again.statusCode).toBe(409)
    const step = await t.ctx.notifications.runOnce()
    expect(step).toMatchObject({ sent: 0, suppressed: 1, failed: 0 })
    const { notifications } = await a.ok('GET', `/api/v1/notifications?packageId=${res.packageId as string}`)
    expect(notifications).toMatchObject([
      { kind: 'ARRIVAL', status: 'suppressed', lastError: 'no SMTP server is configured (SMTP_URL)' },
    ])
    expect((await a.ok('GET', `/api/v1/notifications?contactId=${room.receiverId}`)).notifications).toHaveLength(1)
    // Suppressed emails are still published, for other channels.
    const events = await t.ctx.db
      .selectFrom('package_events')
      .select('event_name')
      .where('package_id', '=', res.packageId as string)
      .where('event_name', '=', 'RecipientNotified')
      .execute()
    expect(events).toHaveLength(1)
  })
})
