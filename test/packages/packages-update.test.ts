import { sql } from 'kysely'
import { beforeAll, describe, expect, it } from 'vitest'
import { findPackages, writeChanges, type PackageChange } from '../../src/packages/store/packages.js'
import { useTestApp, useClient } from '../support/use-test-app.js'
import { api, PNG_1PX, trackingNumber } from '../support/factories.js'

const t = useTestApp()
const me = useClient(t)
let a: ReturnType<typeof api>
let m: Awaited<ReturnType<ReturnType<typeof api>['mailroom']>>
beforeAll(async () => {
  a = api(t, me)
  m = await a.mailroom()
})

const newPackage = async () =>
  (
    await a.ok('POST', '/api/v1/packages', {
      package: { trackingNumber: trackingNumber(), receiver: { contactId: m.receiverId } },
      lastActivity: { status: 'RECEIVED', location: { inboundSiteId: m.shelfId } },
    })
  ).packageId as string
const detailed = (id: string) => a.ok('GET', `/api/v1/packages/${id}?type=DETAILED`)

describe('archive without a body', () => {
  it('archives when no body is sent at all', async () => {
    const id = await newPackage()
    const res = await t.inject({ method: 'PATCH', url: `/api/v1/packages/${id}/archive`, headers: me.auth })
    expect(res.statusCode, res.body).toBe(200)
    expect(await detailed(id)).toMatchObject({ archived: true, currentStatus: 'ARCHIVED' })
  })

  it('archives when an empty body is sent as JSON', async () => {
    const id = await newPackage()
    const res = await t.inject({
      method: 'PATCH',
      url: `/api/v1/packages/${id}/archive`,
      headers: { ...me.auth, 'content-type': 'application/json' },
      payload: '',
    })
    expect(res.statusCode, res.body).toBe(200)
    expect(await detailed(id)).toMatchObject({ archived: true })
  })

  it('still refuses a body that is not the archive object', async () => {
    const id = await newPackage()
    for (const payload of [{ archived: 'yes' }, { archive: true }, [true]]) {
      const res = await a.call('PATCH', `/api/v1/packages/${id}/archive`, payload)
      expect(res.statusCode, JSON.stringify(payload)).toBe(400)
    }
    expect(await detailed(id)).toMatchObject({ archived: false, version: 1 })
  })

  it('an empty JSON body where one is required names the body', async () => {
    const res = await t.inject({
      method: 'POST',
      url: '/api/v1/packages',
      headers: { ...me.auth, 'content-type': 'application/json' },
      payload: '',
    })
    expect(res.statusCode).toBe(400)
    expect(res.json().errors[0]).toMatchObject({ errorCode: 'validation_error', additionalParameters: 'body' })
  })
})

describe('update: bad input', () => {
  const cases: Array<[string, unknown, string]> = [
    ['package missing', { lastActivity: { status: 'DELIVERED' } }, 'package'],
    ['a number as comment', { package: { comment: 5 } }, 'package.comment'],
    ['an unknown status', { package: {}, lastActivity: { status: 'LOST' } }, 'lastActivity.status'],
    ['an unknown asset type', { package: { assetType: 'CRATE' } }, 'package.assetType'],
    ['an unknown confirmation type', { package: { confirmationType: 'TELEPATHY' } }, 'package.confirmationType'],
    ['an unknown field', { package: { colour: 'red' } }, 'package.colour'],
    ['a receiver of type SENDER', { package: { receiver: { contactId: 'SENDER_ID' } } }, 'package.receiver.contactId'],
    [
      'an unknown site',
      { package: {}, lastActivity: { status: 'RECEIVED', location: { inboundSiteId: 'site_nope' } } },
      'lastActivity.location.inboundSiteId',
    ],
    [
      'an image that was never uploaded',
      { package: {}, images: [{ imageLevel: 'ASSET', imageType: 'PHOTO', tempURL: 'temp/images/img_nope' }] },
      'images[0].tempURL',
    ],
    ['a non-numeric timezone', { package: { timezone: 'IST' } }, 'package.timezone'],
  ]
  it.each(cases)('%s is a 400 naming the field, and changes nothing', async (_label, body, field) => {
    const id = await newPackage()
    const payload = JSON.parse(JSON.stringify(body).replace('SENDER_ID', m.senderId))
    const res = await a.call('PUT', `/api/v1/packages/${id}`, payload)
    expect(res.statusCode, res.body).toBe(400)
    expect(res.json().errors.map((e: { additionalParameters?: string }) => e.additionalParameters)).toContain(field)
    expect(await detailed(id)).toMatchObject({ version: 1, currentStatus: 'RECEIVED' })
    expect((await a.ok('GET', `/api/v1/packages/${id}?type=ACTIVITIES`)).activities).toHaveLength(1)
  })

  it('a malformed If-Match is a 400 naming it', async () => {
    const id = await newPackage()
    const res = await a.call(
      'PUT',
      `/api/v1/packages/${id}`,
      { package: { comment: 'x' } },
      { 'if-match': 'not-a-version' },
    )
    expect(res.statusCode).toBe(400)
    expect(res.json().errors[0].additionalParameters).toMatch(/if-match/i)
  })
})

describe("update: another subscription's things", () => {
  it('refuses a contact, site or image of another subscription as if it did not exist', async () => {
    const other = api(t, await t.newClient())
    const theirs = await other.mailroom()
    const theirImage = (await other.ok('POST', '/api/v1/packages/images', { base64: PNG_1PX }, 200)).tempURL as string
    const id = await newPackage()
    const attempts: Array<[unknown, string]> = [
      [{ package: { receiver: { contactId: theirs.receiverId } } }, 'package.receiver.contactId'],
      [{ package: { sender: { contactId: theirs.senderId } } }, 'package.sender.contactId'],
      [
        { package: {}, lastActivity: { status: 'RECEIVED', location: { inboundSiteId: theirs.shelfId } } },
        'lastActivity.location.inboundSiteId',
      ],
      [
        { package: {}, images: [{ imageLevel: 'ASSET', imageType: 'PHOTO', tempURL: theirImage }] },
        'images[0].tempURL',
      ],
    ]
    for (const [body, field] of attempts) {
      const res = await a.call('PUT', `/api/v1/packages/${id}`, body)
      expect(res.statusCode, res.body).toBe(400)
      expect(res.json().errors[0].additionalParameters).toBe(field)
    }
    expect(await detailed(id)).toMatchObject({ version: 1 })
    // Their image is still theirs to attach.
    const theirPackage = await other.ok('POST', '/api/v1/packages', {
      package: { trackingNumber: trackingNumber() },
      images: [{ imageLevel: 'ASSET', imageType: 'PHOTO', tempURL: theirImage }],
    })
    expect(theirPackage.images).toHaveLength(1)
  })
})

describe('concurrent updates of one package', () => {
  it('keeps every one of them: one activity each, contiguous sequences, no comment lost', async () => {
    const id = await newPackage()
    const n = 16
    const results = await Promise.all(
      Array.from({ length: n }, (_, i) =>
        a.call('PUT', `/api/v1/packages/${id}`, {
          package: { comment: `note ${i}` },
          lastActivity: { status: i % 2 ? 'READY_FOR_PICKUP' : 'RECEIVED', comment: `note ${i}` },
        }),
      ),
    )
    expect(results.map((r) => r.statusCode)).toEqual(Array(n).fill(200))
    const record = await detailed(id)
    expect(record.version).toBe(n + 1)
    const { activities } = await a.ok('GET', `/api/v1/packages/${id}?type=ACTIVITIES`)
    expect(activities.map((x: { sequence: number }) => x.sequence)).toEqual(
      Array.from({ length: n + 1 }, (_, i) => i + 1),
    )
    // Each update's own comment is in exactly one activity, and the package shows the last one written.
    const comments = activities
      .slice(1)
      .map((x: { comment: string }) => x.comment)
      .sort()
    expect(comments).toEqual(Array.from({ length: n }, (_, i) => `note ${i}`).sort())
    expect(record.comment).toBe(activities[n].comment)
  })

  it('answers 412 to an If-Match that another update overtook, and writes nothing for it', async () => {
    const id = await newPackage()
    const [first, second] = await Promise.all(
      [1, 2].map((i) =>
        t.inject({
          method: 'PUT',
          url: `/api/v1/packages/${id}`,
          headers: { ...me.auth, 'if-match': '1' },
          payload: { package: { comment: `only one ${i}` } },
        }),
      ),
    )
    expect([first!.statusCode, second!.statusCode].sort()).toEqual([200, 412])
    const { activities } = await a.ok('GET', `/api/v1/packages/${id}?type=ACTIVITIES`)
    expect(activities).toHaveLength(2)
    expect((await detailed(id)).version).toBe(2)
  })
})

describe('concurrent updates of several packages', () => {
  it('writes them together and answers each on its own: its activity, its event, its subscription; a taken number fails only its own update', async () => {
    const b = api(t, await t.newClient())
    const theirSub = (await b.ok('GET', '/api/v1/session')).subId as string
    const mine = await Promise.all([newPackage(), newPackage(), newPackage()])
    const taken = trackingNumber()
    await a.ok('POST', '/api/v1/packages', { package: { trackingNumber: taken } })
    const theirs = (await b.ok('POST', '/api/v1/packages', { package: { trackingNumber: trackingNumber() } }))
      .packageId as string
    const results = await Promise.all([
      a.call('PUT', `/api/v1/packages/${mine[0]}`, {
        package: { comment: 'first' },
        lastActivity: { status: 'READY_FOR_PICKUP' },
      }),
      a.call('PUT', `/api/v1/packages/${mine[1]}`, { package: { trackingNumber: taken } }),
      a.call('PUT', `/api/v1/packages/${mine[2]}`, {
        package: { comment: 'third' },
        lastActivity: { status: 'DAMAGED' },
      }),
      b.call('PUT', `/api/v1/packages/${theirs}`, {
        package: { comment: 'theirs' },
        lastActivity: { status: 'IN_TRANSIT' },
      }),
    ])
    expect(results.map((r) => r.statusCode)).toEqual([200, 409, 200, 200])
    expect(results[1].json().errors[0]).toMatchObject({
      errorCode: 'already_exists',
      additionalParameters: 'package.trackingNumber',
    })
    expect(await detailed(mine[0])).toMatchObject({ comment: 'first', currentStatus: 'READY_FOR_PICKUP', version: 2 })
    expect(await detailed(mine[1])).toMatchObject({ version: 1 })
    expect(await detailed(mine[2])).toMatchObject({
      comment: 'third',
      currentStatus: 'DAMAGED',
      damaged: true,
      version: 2,
    })
    expect(await b.ok('GET', `/api/v1/packages/${theirs}?type=DETAILED`)).toMatchObject({
      comment: 'theirs',
      currentStatus: 'IN_TRANSIT',
      version: 2,
    })
    const events = async (id: string) =>
      await t.ctx.db
        .selectFrom('package_events')
        .select(['sub_id', 'event_name', 'sequence'])
        .where('package_id', '=', id)
        .orderBy('sequence')
        .execute()
    // Each add emits Acceptance then Received (first arrival at a site), each update its own event.
    const added = (sub: string) => [
      { sub_id: sub, event_name: 'Acceptance', sequence: 1 },
      { sub_id: sub, event_name: 'Received', sequence: 2 },
    ]
    expect(await events(mine[0])).toEqual([
      ...added(me.subId),
      { sub_id: me.subId, event_name: 'ReadyForPickup', sequence: 3 },
    ])
    expect(await events(mine[1])).toEqual(added(me.subId))
    expect(await events(mine[2])).toEqual([
      ...added(me.subId),
      { sub_id: me.subId, event_name: 'Exception', sequence: 3 },
    ])
    expect(await events(theirs)).toEqual([
      ...added(theirSub),
      { sub_id: theirSub, event_name: 'InTransit', sequence: 3 },
    ])
    for (const [id, n] of [
      [mine[0], 2],
      [mine[1], 1],
      [mine[2], 2],
    ] as const) {
      expect((await a.ok('GET', `/api/v1/packages/${id}?type=ACTIVITIES`)).activities).toHaveLength(n)
    }
  })
})

describe('an update racing another', () => {
  it('keeps a concurrent move: an update that does not name a site keeps the site of the row it is written on', async () => {
    const moved = await a.site({ type: 'shelf', name: `Shelf moved ${Date.now()}`, parent: m.buildingId })
    for (let i = 0; i < 4; i++) {
      const id = await newPackage()
      const [move, note] = await Promise.all([
        a.call('PUT', `/api/v1/packages/${id}`, {
          package: {},
          lastActivity: { status: 'READY_FOR_PICKUP', location: { inboundSiteId: moved } },
        }),
        a.call('PUT', `/api/v1/packages/${id}`, { package: { comment: `note ${i}` } }),
      ])
      expect([move.statusCode, note.statusCode]).toEqual([200, 200])
      const record = await detailed(id)
      expect(record.currentLocation.inboundSiteId, `round ${i}`).toBe(moved)
      expect(record.comment).toBe(`note ${i}`)
      // The last activity, whichever update wrote it, is at the site the package is at.
      const { activities } = await a.ok('GET', `/api/v1/packages/${id}?type=ACTIVITIES`)
      expect(activities.at(-1).location.inboundSiteId).toBe(moved)
    }
  })

  it('does not write over events numbered since it read the package (the webhook jobs number theirs without a new version)', async () => {
    const id = await newPackage()
    const row = (await findPackages(t.ctx.db, me.subId, [id]))[0]!
    const now = new Date()
    const change: PackageChange = {
      package: {
        ...row,
        version: row.version + 1,
        activity_count: row.activity_count + 1,
        event_count: row.event_count + 1,
        updated_at: now,
      },
      activity: {
        activity_id: `act_race_${id}`,
        sub_id: me.subId,
        package_id: id,
        sequence: row.activity_count + 1,
        status: row.current_status,
        damaged: false,
        user_name: 'clerk',
        occurred_at: now,
      },
      events: [
        {
          event_id: `evt_race_${id}`,
          sub_id: me.subId,
          package_id: id,
          variant: 'tracking',
          event_name: 'Updated',
          sequence: row.event_count + 1,
          occurred_at: now,
          data: JSON.stringify({ packageId: id }),
        },
      ],
      eventCountBefore: row.event_count,
    }
    // A locker job takes the next event number meanwhile.
    await sql`update packages set event_count = event_count + 1 where package_id = ${id}`.execute(t.ctx.db)
    expect(await writeChanges(t.ctx.db, [change])).toEqual(new Set())
    expect(
      await t.ctx.db.selectFrom('package_events').select('event_id').where('event_id', '=', `evt_race_${id}`).execute(),
    ).toEqual([])
    // Recomputed from the row as it is now, it goes through.
    const fresh = (await findPackages(t.ctx.db, me.subId, [id]))[0]!
    expect(
      await writeChanges(t.ctx.db, [
        {
          ...change,
          package: { ...change.package, event_count: fresh.event_count + 1 },
          events: [{ ...change.events[0]!, sequence: fresh.event_count + 1 }],
          eventCountBefore: fresh.event_count,
        },
      ]),
    ).toEqual(new Set([id]))
  })
})
