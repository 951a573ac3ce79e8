import { beforeAll, describe, expect, it } from 'vitest'
import { itRefusesBadTokens } from '../support/auth-matrix.js'
import { useTestApp, useClient } from '../support/use-test-app.js'
import { api, PNG_1PX, trackingNumber } from '../support/factories.js'
import { isStatementError } from '../../src/platform/db/errors.js'
import { insertNewPackages, type NewPackage } from '../../src/packages/store/packages.js'

const t = useTestApp()
const me = useClient(t)
let a: ReturnType<typeof api>
let m: Awaited<ReturnType<ReturnType<typeof api>['mailroom']>>
beforeAll(async () => {
  a = api(t, me)
  m = await a.mailroom()
})

const add = (body: unknown, headers: Record<string, string> = {}) => a.call('POST', '/api/v1/packages', body, headers)
const get = async (id: string, type = 'DETAILED') => a.ok('GET', `/api/v1/packages/${id}?type=${type}`)
async function upload(): Promise<string> {
  return (await a.ok('POST', '/api/v1/packages/images', { base64: PNG_1PX }, 200)).tempURL
}
async function events(packageId: string) {
  return t.ctx.db
    .selectFrom('package_events')
    .select(['variant', 'event_name', 'sequence', 'data'])
    .where('package_id', '=', packageId)
    .orderBy('sequence')
    .execute()
}

describe('packages', () => {
  itRefusesBadTokens(
    () => t,
    [
      { method: 'POST', url: '/api/v1/packages', payload: { package: { trackingNumber: 'X' } } },
      { method: 'GET', url: '/api/v1/packages/pkg_x?type=DETAILED' },
      { method: 'PUT', url: '/api/v1/packages/pkg_x', payload: { package: {} } },
      { method: 'PATCH', url: '/api/v1/packages/pkg_x/archive', payload: {} },
      { method: 'GET', url: '/api/v1/packages/tracking/1Z999' },
      { method: 'POST', url: '/api/v1/trackingNumbers' },
    ],
  )

  it('follows a package from intake to archive, with its whole history', async () => {
    const tn = trackingNumber()
    const label = await upload()
    const res = await add(
      {
        package: {
          trackingNumber: ` ${tn.toLowerCase().slice(0, 4)} ${tn.slice(4)} `,
          carrier: { carrierId: 'UPS' },
          sender: { contactId: m.senderId },
          receiver: { contactId: m.receiverId },
          comment: 'fragile',
          timezone: -330,
          confirmationType: 'SIGNATURE',
        },
        lastActivity: { status: 'RECEIVED', location: { inboundSiteId: m.shelfId, packageLocation: 'Bin 4' } },
        images: [{ imageLevel: 'ASSET', imageType: 'LABEL', tempURL: label, contentType: 'image/png' }],
      },
      { 'x-user-name': 'Front Desk' },
    )
    expect(res.statusCode, res.body).toBe(201)
    const created = res.json()
    expect(created).toEqual({
      packageId: expect.stringMatching(/^pkg_/),
      trackingNumber: tn,
      images: [{ imageId: expect.any(String), tempURL: label, contentType: 'image/png', imageType: 'LABEL' }],
    })
    const id = created.packageId

    const rec = await get(id)
    expect(rec).toMatchObject({
      packageId: id,
      trackingNumber: tn,
      subId: me.subId,
      assetType: 'PACKAGE',
      carrier: { carrierId: 'UPS', name: 'UPS' },
      currentStatus: 'RECEIVED',
      damaged: false,
      archived: false,
      timezone: -330,
      comment: 'fragile',
      confirmationType: 'SIGNATURE',
      packageLocation: 'Bin 4',
      userName: me.clientId,
      receiveClerk: 'Front Desk',
      locationZip: '10001',
      version: 1,
      customFields: [],
      sender: { contactId: m.senderId, name: 'Acme Supplies' },
      receiver: { contactId: m.receiverId, name: 'Ada Lovelace', email: 'ada@example.com' },
      currentLocation: {
        inboundSiteId: m.shelfId,
        name: 'Shelf 1',
        type: 'shelf',
        parent: m.buildingId,
        ancestorlist: [m.siteId, m.buildingId],
      },
    })
    expect(rec.insertTimestamp).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/)
    expect(rec.deliveryTime).toBeUndefined()

    await a.ok('PUT', `/api/v1/packages/${id}`, {
      package: {},
      lastActivity: { status: 'OUT_FOR_DELIVERY', comment: 'on the cart' },
    })
    const signature = await upload()
    const delivered = await a.ok('PUT', `/api/v1/packages/${id}`, {
      package: { additionalConfirmationType: 'PHOTO' },
      lastActivity: { status: 'DELIVERED', location: { inboundSiteId: m.buildingId } },
      images: [{ imageLevel: 'ACTIVITY', imageType: 'SIGNATURE', tempURL: signature }],
    })
    expect(delivered.images).toEqual([
      { imageId: expect.any(String), tempURL: signature, contentType: 'image/png', imageType: 'SIGNATURE' },
    ])
    const after = await get(id)
    expect(after).toMatchObject({
      currentStatus: 'DELIVERED',
      givenTo: { contactId: m.receiverId },
      deliveryClerk: me.clientId,
      version: 3,
      currentLocation: { inboundSiteId: m.buildingId },
      additionalConfirmationType: 'PHOTO',
      comment: 'fragile',
    })
    expect(after.deliveryTime).toBe(t.clock.now().toISOString())

    const history = await get(id, 'ACTIVITIES')
    expect(history.activities.map((x: { sequence: number; status: string }) => [x.sequence, x.status])).toEqual([
      [1, 'RECEIVED'],
      [2, 'OUT_FOR_DELIVERY'],
      [3, 'DELIVERED'],
    ])
    // Each image is listed with the activity that brought it, package-level ones too.
    // X-User-Name is what the client claims: beside the authenticated client id, never instead of it.
    expect(history.activities[0]).toMatchObject({
      userName: me.clientId,
      reportedBy: 'Front Desk',
      packageLocation: 'Bin 4',
      location: { inboundSiteId: m.shelfId },
      images: [{ imageId: created.images[0].imageId, tempURL: label, contentType: 'image/png', imageType: 'LABEL' }],
    })
    expect(history.activities[1].images).toEqual([])
    expect(history.activities[1].userName).toBe(me.clientId)
    expect(history.activities[1]).not.toHaveProperty('reportedBy')
    expect(history.activities[1].comment).toBe('on the cart')
    expect(history.activities[2].images).toEqual([
      { imageId: delivered.images[0].imageId, tempURL: signature, contentType: 'image/png', imageType: 'SIGNATURE' },
    ])

    const imgs = await get(id, 'IMAGES')
    expect(imgs.images).toEqual([
      {
        imageId: created.images[0].imageId,
        imageLevel: 'ASSET',
        imageType: 'LABEL',
        contentType: 'image/png',
        tempURL: label,
        activityId: history.activities[0].activityId,
      },
      {
        imageId: delivered.images[0].imageId,
        imageLevel: 'ACTIVITY',
        imageType: 'SIGNATURE',
        contentType: 'image/png',
        tempURL: signature,
        activityId: history.activities[2].activityId,
      },
    ])
    const bytes = await a.call('GET', `/${signature}`)
    expect(bytes.statusCode).toBe(200)
    expect(bytes.headers['content-type']).toBe('image/png')

    expect(await a.ok('PATCH', `/api/v1/packages/${id}/archive`, {})).toEqual({ packageId: id })
    expect(await get(id)).toMatchObject({ archived: true, currentStatus: 'ARCHIVED', version: 4 })
    const locked = await a.call('PUT', `/api/v1/packages/${id}`, { package: { comment: 'late edit' } })
    expect(locked.statusCode).toBe(409)
    expect(locked.json().errors[0]).toMatchObject({ errorCode: 'validation_error', additionalCode: 'PKG-4091' })
    expect((await a.ok('GET', `/api/v1/packages/tracking/${tn}`)).packageId).toBe(id)

    expect((await events(id)).map((e) => [e.variant, e.event_name, e.sequence])).toEqual([
      ['tracking', 'Acceptance', 1],
      ['tracking', 'Received', 2],
      ['tracking', 'OutForDelivery', 3],
      ['tracking', 'Delivered', 4],
      ['tracking', 'Archived', 5],
    ])
    const deliveredEvent = (await events(id))[3]!.data
    expect(deliveredEvent).toMatchObject({
      packageId: id,
      trackingNumber: tn,
      currentStatus: 'DELIVERED',
      previousStatus: 'OUT_FOR_DELIVERY',
      sequence: 4,
      receiver: { contactId: m.receiverId, name: 'Ada Lovelace' },
      currentLocation: { inboundSiteId: m.buildingId },
    })

    // An archived package never blocks the number; un-archiving then collides with the new one.
    const again = await add({ package: { trackingNumber: tn } })
    expect(again.statusCode).toBe(201)
    expect((await a.ok('GET', `/api/v1/packages/tracking/${tn}`)).packageId).toBe(again.json().packageId)
    const unarchive = await a.call('PATCH', `/api/v1/packages/${id}/archive`, { archived: false })
    expect(unarchive.statusCode).toBe(409)
    expect(unarchive.json().errors[0].errorCode).toBe('already_exists')
  })

  it('un-archives back to the status before archiving', async () => {
    const id = (
      await add({ package: { trackingNumber: trackingNumber() }, lastActivity: { status: 'READY_FOR_PICKUP' } })
    ).json().packageId
    await a.ok('PATCH', `/api/v1/packages/${id}/archive`, { archived: true })
    await a.ok('PATCH', `/api/v1/packages/${id}/archive`, { archived: true })
    await a.ok('PATCH', `/api/v1/packages/${id}/archive`, { archived: false })
    expect(await get(id)).toMatchObject({ archived: false, currentStatus: 'READY_FOR_PICKUP', version: 3 })
  })

  it('gives exactly one 201 among concurrent adds of one number', async () => {
    const tn = trackingNumber('9400')
    const results = await Promise.all(Array.from({ length: 12 }, () => add({ package: { trackingNumber: tn } })))
    const codes = results.map((r) => r.statusCode).sort()
    expect(codes.filter((c) => c === 201)).toHaveLength(1)
    expect(codes.filter((c) => c === 409)).toHaveLength(11)
    expect(results.find((r) => r.statusCode === 409)!.json().errors[0]).toMatchObject({
      errorCode: 'already_exists',
      additionalParameters: 'package.trackingNumber',
    })
    const rows = await t.ctx.db.selectFrom('packages').select('package_id').where('tracking_number', '=', tn).execute()
    expect(rows).toHaveLength(1)
    expect(
      await t.ctx.db
        .selectFrom('package_activities')
        .select('activity_id')
        .where('package_id', '=', rows[0]!.package_id)
        .execute(),
    ).toHaveLength(1)
  })

  it('writes concurrent adds together and answers each on its own, across subscriptions', async () => {
    const b = api(t, await t.newClient())
    const [n1, n2, n3, n4] = [
      trackingNumber('1ZTOG'),
      trackingNumber('1ZTOG'),
      trackingNumber('1ZTOG'),
      trackingNumber('1ZTOG'),
    ]
    const mine = [n1, n1, n2, n3]
    const theirs = [n2, n4]
    const results = await Promise.all([
      ...mine.map((tn) => add({ package: { trackingNumber: tn, receiver: { contactId: m.receiverId } } })),
      ...theirs.map((tn) => b.call('POST', '/api/v1/packages', { package: { trackingNumber: tn } })),
    ])
    const codes = results.map((r) => r.statusCode)
    expect([...codes.slice(0, 2)].sort()).toEqual([201, 409])
    expect(codes.slice(2)).toEqual([201, 201, 201, 201])
    const theirSub = (await b.ok('GET', '/api/v1/session')).subId as string
    for (const [i, r] of results.entries()) {
      if (r.statusCode !== 201) continue
      const { packageId, trackingNumber: tn } = r.json()
      const owner = i < mine.length ? a : b
      expect(tn).toBe(i < mine.length ? mine[i] : theirs[i - mine.length])
      expect(await owner.ok('GET', `/api/v1/packages/${packageId}?type=DETAILED`)).toMatchObject({
        packageId,
        trackingNumber: tn,
        version: 1,
      })
      expect((await owner.ok('GET', `/api/v1/packages/${packageId}?type=ACTIVITIES`)).activities).toHaveLength(1)
      const rows = await t.ctx.db
        .selectFrom('package_events')
        .select(['sub_id', 'event_name', 'data'])
        .where('package_id', '=', packageId)
        .orderBy('sequence')
        .execute()
      expect(rows.map((e) => [e.sub_id, e.event_name])).toEqual([
        [owner === a ? me.subId : theirSub, 'Acceptance'],
        [owner === a ? me.subId : theirSub, 'Received'],
      ])
      if (owner === a)
        expect(rows[0]!.data).toMatchObject({ packageId, trackingNumber: tn, receiver: { contactId: m.receiverId } })
    }
  })

  it('writes a statement of gathered adds whole or not at all', async () => {
    const now = new Date()
    const newPackage = (packageId: string, siteId: string | null): NewPackage => ({
      package: {
        package_id: packageId,
        sub_id: me.subId,
        tracking_number: trackingNumber(),
        asset_type: 'PACKAGE',
        current_status: 'RECEIVED',
        damaged: false,
        archived: false,
        site_id: siteId,
        custom_fields: '[]',
        user_name: 'clerk',
        receive_clerk: 'clerk',
        version: 1,
        activity_count: 1,
        event_count: 1,
        created_at: now,
        updated_at: now,
      },
      activity: {
        activity_id: `act_${packageId}`,
        sub_id: me.subId,
        package_id: packageId,
        sequence: 1,
        status: 'RECEIVED',
        site_id: siteId,
        damaged: false,
        user_name: 'clerk',
        occurred_at: now,
      },
      events: [
        {
          event_id: `evt_${packageId}`,
          sub_id: me.subId,
          package_id: packageId,
          variant: 'tracking',
          event_name: 'Received',
          sequence: 1,
          occurred_at: now,
          data: JSON.stringify({ packageId }),
        },
      ],
    })
    const good = newPackage('pkg_together_good', m.siteId)
    const refused = await insertNewPackages(t.ctx.db, [
      good,
      newPackage('pkg_together_bad', 'site_that_does_not_exist'),
    ]).catch((e: unknown) => e)
    expect(refused).toBeInstanceOf(Error)
    // The database's own refusal: the gathered writes may then be written one by one.
    expect(isStatementError(refused)).toBe(true)
    expect(isStatementError(new Error('Connection terminated unexpectedly'))).toBe(false)
    for (const table of ['packages', 'package_activities', 'package_events'] as const) {
      expect(
        await t.ctx.db
          .selectFrom(table)
          .select('package_id')
          .where('package_id', 'in', ['pkg_together_good', 'pkg_together_bad'])
          .execute(),
      ).toEqual([])
    }
    expect(await insertNewPackages(t.ctx.db, [good])).toEqual(new Set(['pkg_together_good']))
    expect((await get('pkg_together_good')).customFields ?? []).toEqual([])
  })

  it('applies the status side effects and the locker events', async () => {
    const id = (await add({ package: { trackingNumber: trackingNumber(), receiver: { contactId: m.allId } } })).json()
      .packageId
    const noLocker = await a.call('PUT', `/api/v1/packages/${id}`, {
      package: {},
      lastActivity: { status: 'IN_LOCKER' },
    })
    expect(noLocker.statusCode).toBe(400)
    expect(noLocker.json().errors[0].additionalParameters).toBe('lastActivity.location.lockerBank')
    await a.ok('PUT', `/api/v1/packages/${id}`, {
      package: {},
      lastActivity: { status: 'IN_LOCKER', location: { lockerBank: 'B1', lockerUnit: '17' } },
    })
    expect(await get(id)).toMatchObject({ currentStatus: 'IN_LOCKER', lockerBank: 'B1', lockerUnit: '17' })
    await a.ok('PUT', `/api/v1/packages/${id}`, {
      package: { givenTo: { contactId: m.receiverId } },
      lastActivity: { status: 'PICKED_UP' },
    })
    const rec = await get(id)
    expect(rec).toMatchObject({ currentStatus: 'PICKED_UP', givenTo: { contactId: m.receiverId } })
    expect(rec.lockerBank).toBeUndefined()
    await a.ok('PUT', `/api/v1/packages/${id}`, { package: {}, lastActivity: { status: 'DAMAGED' } })
    expect((await get(id)).damaged).toBe(true)
    expect((await events(id)).map((e) => `${e.variant}:${e.event_name}:${e.sequence}`)).toEqual([
      'tracking:Acceptance:1',
      'tracking:Received:2',
      'tracking:ReadyForPickup:3',
      'locker:Deposited:4',
      'tracking:PickedUp:5',
      'locker:PickedUp:6',
      'tracking:Exception:7',
    ])
  })

  it('refuses bad input with a 400 naming each field, and writes nothing', async () => {
    const tn = trackingNumber()
    const cases: Array<[unknown, string[]]> = [
      [{}, ['package']],
      [{ package: { trackingNumber: 12345 } }, ['package.trackingNumber']],
      [{ package: { trackingNumber: '  ' } }, ['package.trackingNumber']],
      [{ package: { trackingNumber: tn, assetType: 'CRATE' } }, ['package.assetType']],
      [{ package: { trackingNumber: tn }, lastActivity: { status: 'LOST' } }, ['lastActivity.status']],
      [
        { package: { trackingNumber: tn, sender: { contactId: m.receiverId }, receiver: { contactId: m.senderId } } },
        ['package.sender.contactId', 'package.receiver.contactId'],
      ],
      [
        { package: { trackingNumber: tn, receiver: { contactId: 'con_missing' }, carrier: { carrierId: 'NOPE' } } },
        ['package.receiver.contactId', 'package.carrier.carrierId'],
      ],
      [{ package: { trackingNumber: tn, inboundSiteId: 'site_missing' } }, ['package.inboundSiteId']],
      [{ package: { trackingNumber: tn }, lastActivity: { status: 'DELIVERED' } }, ['package.givenTo']],
      [{ package: { trackingNumber: tn, timezone: 'IST' } }, ['package.timezone']],
      [{ package: { trackingNumber: tn, comment: 'x'.repeat(2001) } }, ['package.comment']],
      [
        {
          package: { trackingNumber: tn },
          images: [{ imageLevel: 'ASSET', imageType: 'LABEL', tempURL: 'temp/images/img_nope' }],
        },
        ['images[0].tempURL'],
      ],
      [{ package: { trackingNumber: tn, unknownField: 1 } }, ['package.unknownField']],
    ]
    for (const [body, fields] of cases) {
      const res = await add(body)
      expect(res.statusCode, JSON.stringify(body)).toBe(400)
      const named = res.json().errors.map((e: { additionalParameters?: string }) => e.additionalParameters)
      expect(named, JSON.stringify(body)).toEqual(expect.arrayContaining(fields))
      expect(
        res
          .json()
          .errors.every(
            (e: { errorCode: string; correlationID: string }) => e.errorCode === 'validation_error' && e.correlationID,
          ),
      ).toBe(true)
    }
    expect((await a.call('GET', `/api/v1/packages/tracking/${tn}`)).statusCode).toBe(404)
    const malformed = await t.inject({
      method: 'POST',
      url: '/api/v1/packages',
      headers: { ...me.auth, 'content-type': 'application/json' },
      payload: '{"package":',
    })
    expect(malformed.statusCode).toBe(400)
    expect(malformed.json().errors[0].additionalCode).toBe('GEN-4001')
    const oversized = await t.inject({
      method: 'POST',
      url: '/api/v1/packages',
      headers: { ...me.auth, 'content-type': 'application/json' },
      payload: JSON.stringify({ package: { trackingNumber: tn, comment: 'x'.repeat(2 * 1024 * 1024) } }),
    })
    expect(oversized.statusCode).toBe(413)
    expect(oversized.json().errors[0].errorCode).toBe('validation_error')
    const text = await t.inject({
      method: 'POST',
      url: '/api/v1/packages',
      headers: { ...me.auth, 'content-type': 'text/plain' },
      payload: 'hello',
    })
    expect(text.statusCode).toBe(415)
    expect((await a.call('GET', '/api/v1/packages/pkg_x?type=SUMMARY')).statusCode).toBe(400)
    expect((await a.call('GET', '/api/v1/packages/pkg_x')).statusCode).toBe(400)
  })

  it('honours If-Match and reports a stale version with 412', async () => {
    const id = (await add({ package: { trackingNumber: trackingNumber() } })).json().packageId
    const stale = await a.call('PUT', `/api/v1/packages/${id}`, { package: { comment: 'a' } }, { 'if-match': '7' })
    expect(stale.statusCode).toBe(412)
    expect(stale.json().errors[0].errorCode).toBe('validation_error')
    expect(
      (await a.call('PUT', `/api/v1/packages/${id}`, { package: { comment: 'b' } }, { 'if-match': '"1"' })).statusCode,
    ).toBe(200)
    expect(await get(id)).toMatchObject({ comment: 'b', version: 2 })
    await a.ok('PUT', `/api/v1/packages/${id}`, { package: { comment: null } })
    expect((await get(id)).comment).toBeUndefined()
  })

  it('replays a POST with the same Idempotency-Key and refuses the key with another body', async () => {
    const body = { package: { trackingNumber: trackingNumber() } }
    const first = await add(body, { 'idempotency-key': 'key-1' })
    const second = await add(body, { 'idempotency-key': 'key-1' })
    expect(first.statusCode).toBe(201)
    expect(second.statusCode).toBe(201)
    expect(second.headers['idempotent-replayed']).toBe('true')
    expect(second.json()).toEqual(first.json())
    const other = await add({ package: { trackingNumber: trackingNumber() } }, { 'idempotency-key': 'key-1' })
    expect(other.statusCode).toBe(409)
    expect(other.json().errors[0].additionalCode).toBe('GEN-4091')
    // Keys belong to a subscription: another one may use the same key for its own request.
    const b = api(t, await t.newClient())
    expect((await b.call('POST', '/api/v1/packages', body, { 'idempotency-key': 'key-1' })).statusCode).toBe(201)
  })

  it('answers concurrent reads (gathered into one query per subscription) each with its own package', async () => {
    const numbers = Array.from({ length: 6 }, () => trackingNumber('1ZCONC'))
    const ids = await Promise.all(
      numbers.map(async (tn) => (await add({ package: { trackingNumber: tn } })).json().packageId as string),
    )
    // One number twice: archived, then received again.
    await a.ok('PATCH', `/api/v1/packages/${ids[0]}/archive`, {})
    const readded = (await add({ package: { trackingNumber: numbers[0] } })).json().packageId as string
    const b = api(t, await t.newClient())
    const theirs = (await b.call('POST', '/api/v1/packages', { package: { trackingNumber: numbers[1] } })).json()
      .packageId as string

    const [mineById, mineByNumber, bById, bByNumber] = await Promise.all([
      Promise.all(ids.map((id) => a.call('GET', `/api/v1/packages/${id}?type=DETAILED`))),
      Promise.all(numbers.map((tn) => a.call('GET', `/api/v1/packages/tracking/${tn}`))),
      Promise.all([...ids, theirs].map((id) => b.call('GET', `/api/v1/packages/${id}?type=DETAILED`))),
      Promise.all(numbers.map((tn) => b.call('GET', `/api/v1/packages/tracking/${tn}`))),
    ])
    expect(mineById.map((r) => [r.statusCode, r.json().packageId, r.json().trackingNumber])).toEqual(
      ids.map((id, i) => [200, id, numbers[i]]),
    )
    expect(mineById[0]!.json().archived).toBe(true)
    expect(mineByNumber.map((r) => r.json().packageId)).toEqual([readded, ...ids.slice(1)])
    expect(bById.map((r) => r.statusCode)).toEqual([404, 404, 404, 404, 404, 404, 200])
    expect(bById[6]!.json().packageId).toBe(theirs)
    expect(bByNumber.map((r) => r.statusCode)).toEqual([404, 200, 404, 404, 404, 404])
    expect(bByNumber[1]!.json().packageId).toBe(theirs)
  })

  it("never shows or changes another subscription's packages", async () => {
    const tn = trackingNumber()
    const id = (await add({ package: { trackingNumber: tn } })).json().packageId
    const label = await upload()
    const b = api(t, await t.newClient())
    for (const type of ['DETAILED', 'ACTIVITIES', 'IMAGES'])
      expect((await b.call('GET', `/api/v1/packages/${id}?type=${type}`)).statusCode).toBe(404)
    expect((await b.call('PUT', `/api/v1/packages/${id}`, { package: { comment: 'mine now' } })).statusCode).toBe(404)
    expect((await b.call('PATCH', `/api/v1/packages/${id}/archive`, {})).statusCode).toBe(404)
    expect((await b.call('GET', `/api/v1/packages/tracking/${tn}`)).statusCode).toBe(404)
    expect((await b.call('GET', `/${label}`)).statusCode).toBe(404)
    const steal = await b.call('POST', '/api/v1/packages', {
      package: { trackingNumber: trackingNumber(), receiver: { contactId: m.receiverId }, inboundSiteId: m.siteId },
      images: [{ imageLevel: 'ASSET', imageType: 'LABEL', tempURL: label }],
    })
    expect(steal.statusCode).toBe(400)
    expect(
      steal
        .json()
        .errors.map((e: { additionalParameters: string }) => e.additionalParameters)
        .sort(),
    ).toEqual(['package.inboundSiteId', 'package.receiver.contactId'])
    // Same tracking number in another subscription is not a duplicate.
    expect((await b.call('POST', '/api/v1/packages', { package: { trackingNumber: tn } })).statusCode).toBe(201)
    expect((await get(id)).version).toBe(1)
  })
})

describe('tracking numbers', () => {
  it('generates unique, check-digit-valid numbers even under concurrency', async () => {
    const { isValidMailroomNumber } = await import('../../src/decode/mailroom-number.js')
    const results = await Promise.all(
      Array.from({ length: 60 }, () => a.ok('POST', '/api/v1/trackingNumbers', undefined, 200)),
    )
    const numbers = results.map((r) => r.trackingNumber as string)
    expect(new Set(numbers).size).toBe(60)
    for (const n of numbers) {
      expect(n).toMatch(/^MR[0-9A-HJKMNP-TV-Z]{13}$/)
      expect(isValidMailroomNumber(n)).toBe(true)
    }
  })
})
