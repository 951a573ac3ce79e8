import { beforeAll, describe, expect, it } from 'vitest'
import { api, trackingNumber } from '../support/factories.js'
import { useClient, useTestApp } from '../support/use-test-app.js'
import { useSmtpServer } from '../notifications/support/smtp.js'

// Issue 30, flags and fees, through HTTP: a parcel's flags (Add, Update, DETAILED, search, CSV,
// the event data, emails), a SIGNATURE_REQUIRED parcel at hand-over, perishables reminded sooner,
// and a site's holding fee (inherited, on the package, in the pickup's receipt). Bad input is a
// 400 naming the field; another subscription sees none of it.

const { smtp, env } = useSmtpServer()
const t = useTestApp(env)
const me = useClient(t)
const other = useClient(t)
const DAY = 86_400_000
const HOUR = 3_600_000
let a: ReturnType<typeof api>
let m: Awaited<ReturnType<ReturnType<typeof api>['mailroom']>>
beforeAll(async () => {
  a = api(t, me)
  m = await a.mailroom()
})

type Errors = { errors: Array<{ additionalParameters: string; errorDescription: string }> }
const fieldsOf = (res: { json(): unknown }) => (res.json() as Errors).errors.map((e) => e.additionalParameters)
const detailed = (id: string) => a.ok('GET', `/api/v1/packages/${id}?type=DETAILED`)
async function receive(receiver: string, extra: Record<string, unknown> = {}, at = m.shelfId) {
  const number = trackingNumber('1ZFLAG')
  const { packageId } = await a.ok('POST', '/api/v1/packages', {
    package: { trackingNumber: number, receiver: { contactId: receiver }, ...extra },
    lastActivity: { status: 'RECEIVED', location: { inboundSiteId: at } },
  })
  return { packageId: packageId as string, number }
}

describe('flags on a parcel', () => {
  it('are added, replaced, cleared, read in DETAILED, searched, exported and carried in the event data', async () => {
    const p = await receive(m.receiverId, { flags: ['FRAGILE', 'PERISHABLE', 'FRAGILE'] })
    expect((await detailed(p.packageId)).flags).toEqual(['PERISHABLE', 'FRAGILE'])
    // Absent keeps them; given replaces; null clears.
    await a.ok('PUT', `/api/v1/packages/${p.packageId}`, { package: { comment: 'on the cold shelf' } })
    expect((await detailed(p.packageId)).flags).toEqual(['PERISHABLE', 'FRAGILE'])
    await a.ok('PUT', `/api/v1/packages/${p.packageId}`, { package: { flags: ['MEDICATION'] } })
    expect((await detailed(p.packageId)).flags).toEqual(['MEDICATION'])

    const found = await a.ok('GET', `/api/v1/packages?search=${encodeURIComponent('flags:medication')}`)
    expect(found.packages.map((x: { packageId: string }) => x.packageId)).toEqual([p.packageId])
    const none = await a.ok('GET', `/api/v1/packages?search=${encodeURIComponent('flags:oversize')}`)
    expect(none.totalCount).toBe(0)
    const csv = await a.call(
      'POST',
      '/api/v1/packages/search',
      { trackingNumber: 'Number', flags: 'Flags' },
      { accept: 'text/csv' },
    )
    expect(csv.statusCode, csv.body).toBe(200)
    expect(csv.body).toContain(`${p.number},MEDICATION`)

    const { rows } = await t.ctx.db
      .selectFrom('package_events')
      .select(['event_name', 'data'])
      .where('package_id', '=', p.packageId)
      .orderBy('sequence')
      .execute()
      .then((r) => ({ rows: r }))
    expect((rows.at(-1)!.data as { flags: string[] }).flags).toEqual(['MEDICATION'])

    await a.ok('PUT', `/api/v1/packages/${p.packageId}`, { package: { flags: null } })
    expect((await detailed(p.packageId)).flags).toEqual([])
  })

  it('refuses an unknown flag or a flags that is no list, naming the field, and writes nothing', async () => {
    const bad = await a.call('POST', '/api/v1/packages', {
      package: { trackingNumber: trackingNumber('1ZBAD'), flags: ['PERISHABLE', 'RADIOACTIVE'] },
    })
    expect(bad.statusCode, bad.body).toBe(400)
    expect(fieldsOf(bad).some((f) => f.startsWith('package.flags'))).toBe(true)
    const p = await receive(m.receiverId, { flags: ['OVERSIZE'] })
    const notList = await a.call('PUT', `/api/v1/packages/${p.packageId}`, { package: { flags: 'OVERSIZE' } })
    expect(notList.statusCode, notList.body).toBe(400)
    expect(fieldsOf(notList).some((f) => f.startsWith('package.flags'))).toBe(true)
    expect((await detailed(p.packageId)).flags).toEqual(['OVERSIZE'])
  })

  it('are not seen by another subscription', async () => {
    const p = await receive(m.receiverId, { flags: ['MEDICATION'] })
    const b = api(t, other)
    expect((await b.call('GET', `/api/v1/packages/${p.packageId}?type=DETAILED`)).statusCode).toBe(404)
    const theirs = await b.ok('GET', `/api/v1/packages?search=${encodeURIComponent('flags:MEDICATION')}`)
    expect(theirs.totalCount).toBe(0)
  })

  it('SIGNATURE_REQUIRED asks the signature at hand-over where the site asks none', async () => {
    await a.ok('PUT', `/api/v1/inboundsites/${m.siteId}`, { signatureRule: 'off' }, 200)
    const who = await a.contact('RECEIVER', 'Sid Signer')
    const plain = await receive(who)
    const flagged = await receive(who, { flags: ['SIGNATURE_REQUIRED'] })
    const refused = await a.call('POST', '/api/v1/pickups', { contactId: who })
    expect(refused.statusCode, refused.body).toBe(400)
    expect(fieldsOf(refused)).toEqual(['images'])
    expect(refused.json<Errors>().errors[0]!.errorDescription).toContain(
      `${flagged.number} (flagged SIGNATURE_REQUIRED)`,
    )
    expect((await detailed(plain.packageId)).currentStatus).toBe('RECEIVED')
    // The unflagged parcel alone goes without; the flagged one with a typed signature.
    await a.ok('POST', '/api/v1/pickups', { contactId: who, packageIds: [plain.packageId] }, 201)
    await a.ok('POST', '/api/v1/pickups', { contactId: who, typedSignature: 'Sid Signer' }, 201)
    expect((await detailed(flagged.packageId)).currentStatus).toBe('DELIVERED')
    await a.ok('PUT', `/api/v1/inboundsites/${m.siteId}`, { signatureRule: null }, 200)
  })
})

describe('holding fees', () => {
  it('refuses a bad fee naming its field, and inherits from the nearest site that sets one', async () => {
    const bad = await a.call('PUT', `/api/v1/inboundsites/${m.buildingId}`, {
      holdingFee: { freeDays: -1, amountPerDay: 1.5, currency: 'eur' },
    })
    expect(bad.statusCode, bad.body).toBe(400)
    expect(fieldsOf(bad)).toEqual(
      expect.arrayContaining(['holdingFee.freeDays', 'holdingFee.amountPerDay', 'holdingFee.currency']),
    )
    const missing = await a.call('POST', '/api/v1/inboundsites', {
      type: 'shelf',
      name: 'Cage',
      parent: m.buildingId,
      holdingFee: { freeDays: 1 },
    })
    expect(missing.statusCode, missing.body).toBe(400)
    expect(fieldsOf(missing).some((f) => f.startsWith('holdingFee'))).toBe(true)

    const fee = { freeDays: 3, amountPerDay: 200, currency: 'USD', cap: 1000 }
    await a.ok('PUT', `/api/v1/inboundsites/${m.siteId}`, { holdingFee: fee }, 200)
    const sites = (await a.ok('GET', '/api/v1/inboundsites?limit=200')).inboundSites as Array<Record<string, unknown>>
    expect(sites.find((s) => s.inboundSiteId === m.siteId)?.holdingFee).toEqual(fee)
    expect(sites.find((s) => s.inboundSiteId === m.shelfId)?.holdingFee).toBeUndefined()
    // Another subscription cannot set a fee on this site.
    const theirs = await api(t, other).call('PUT', `/api/v1/inboundsites/${m.siteId}`, { holdingFee: null })
    expect(theirs.statusCode).toBe(404)
  })

  it('shows what a waiting parcel owes on the package, and charges it in the pickup receipt', async () => {
    const who = await a.contact('RECEIVER', 'Fay Feepayer')
    const p = await receive(who)
    const q = await receive(who)
    const first = await detailed(p.packageId)
    expect(first.holdingFee).toMatchObject({ amount: 0, currency: 'USD', daysHeld: 0, capped: false })
    t.clock.advance(5 * DAY - HOUR)
    a = api(t, await t.refresh(me))
    // 5 started days, 3 free: 2 × 2.00 $.
    expect((await detailed(p.packageId)).holdingFee).toMatchObject({ amount: 400, chargedDays: 2, daysHeld: 5 })
    const pickup = await a.ok('POST', '/api/v1/pickups', { contactId: who, typedSignature: 'Fay Feepayer' }, 201)
    expect(pickup.holdingFees.totals).toEqual([{ amount: 800, currency: 'USD' }])
    expect(pickup.holdingFees.packages.map((x: { packageId: string }) => x.packageId).sort()).toEqual(
      [p.packageId, q.packageId].sort(),
    )
    expect((await a.ok('GET', `/api/v1/pickups/${pickup.pickupId}`)).holdingFees).toEqual(pickup.holdingFees)
    // Once handed over, the fee is what it was at the hand-over, whenever it is read.
    t.clock.advance(3 * DAY)
    a = api(t, await t.refresh(me))
    expect((await detailed(p.packageId)).holdingFee).toMatchObject({ amount: 400, chargedDays: 2 })
    // 0 a day on the shelf stops the building's fee there; null inherits again.
    await a.ok(
      'PUT',
      `/api/v1/inboundsites/${m.shelfId}`,
      { holdingFee: { freeDays: 0, amountPerDay: 0, currency: 'USD' } },
      200,
    )
    const free = await receive(who)
    t.clock.advance(9 * DAY)
    a = api(t, await t.refresh(me))
    expect((await detailed(free.packageId)).holdingFee).toBeUndefined()
    await a.ok('PUT', `/api/v1/inboundsites/${m.shelfId}`, { holdingFee: null }, 200)
    expect((await detailed(free.packageId)).holdingFee).toMatchObject({ amount: 1000, capped: true })
    await a.ok('PUT', `/api/v1/inboundsites/${m.siteId}`, { holdingFee: null }, 200)
    const b = api(t, await t.refresh(other))
    expect((await b.call('GET', `/api/v1/pickups/${pickup.pickupId}`)).statusCode).toBe(404)
  })
})

type Mail = (typeof smtp.received)[number]
const toOf = (x: Mail) => (x.mail.to && 'text' in x.mail.to ? x.mail.to.text : '')
const remindersTo = (who: string[]) =>
  smtp.received.filter((x) => x.mail.subject?.startsWith('Reminder') && who.includes(toOf(x)))

describe('perishables in emails and reminders', () => {
  it('refuses an interval no shorter than the first reminder, naming it', async () => {
    const base = { enabled: true, arrivalBatchSeconds: 0, finalNoticeAfterHours: null, templates: {} }
    for (const body of [
      { ...base, reminderAfterHours: [24], perishableReminderAfterHours: 24 },
      { ...base, reminderAfterHours: [], perishableReminderAfterHours: 2 },
      { ...base, reminderAfterHours: [24], perishableReminderAfterHours: -1 },
    ]) {
      const res = await a.call('PUT', '/api/v1/notifications/settings', body)
      expect(res.statusCode, res.body).toBe(400)
      expect(new Set(fieldsOf(res))).toEqual(new Set(['perishableReminderAfterHours']))
    }
  })

  it('shows the flags in the arrival email, and reminds of a perishable parcel sooner', async () => {
    a = api(t, await t.refresh(me))
    await a.ok('PUT', '/api/v1/notifications/settings', {
      enabled: true,
      arrivalBatchSeconds: 0,
      reminderAfterHours: [48],
      finalNoticeAfterHours: null,
      perishableReminderAfterHours: 4,
      templates: {},
    })
    expect((await a.ok('GET', '/api/v1/notifications/settings')).perishableReminderAfterHours).toBe(4)
    const pia = await a.contact('RECEIVER', 'Pia Perishable', { email: 'pia@example.com' })
    const noa = await a.contact('RECEIVER', 'Noa Normal', { email: 'noa@example.com' })
    const fresh = await receive(pia, { flags: ['PERISHABLE', 'MEDICATION'] })
    await receive(noa, { flags: ['FRAGILE'] })
    smtp.clear()
    await t.ctx.notifications.runOnce()
    const arrival = smtp.received.find((x) => x.mail.text?.includes(fresh.number))!
    expect(arrival.mail.text).toContain(`${fresh.number}`)
    expect(arrival.mail.text).toContain('[perishable, medication]')
    expect(arrival.mail.text).toContain('Perishable: please collect it as soon as you can.')
    expect(arrival.mail.html).toContain('<strong>[perishable, medication]</strong>')
    smtp.clear()
    t.clock.advance(4 * HOUR + 60_000)
    await t.ctx.notifications.runOnce()
    // (Ada's parcels of the tests above are reminded at their own times: only Pia's and Noa's are looked at.)
    const reminders = remindersTo(['pia@example.com', 'noa@example.com'])
    expect(reminders.map(toOf)).toEqual(['pia@example.com'])
    expect(reminders[0]!.mail.text).toContain('[perishable, medication]')
    // The normal parcel at its normal time, the perishable one not again at that step.
    smtp.clear()
    t.clock.advance(44 * HOUR)
    await t.ctx.notifications.runOnce()
    expect(remindersTo(['pia@example.com', 'noa@example.com']).map(toOf)).toEqual(['noa@example.com'])
  })
})
