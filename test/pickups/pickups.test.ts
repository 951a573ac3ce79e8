import { beforeAll, describe, expect, it } from 'vitest'
import { itRefusesBadTokens } from '../support/auth-matrix.js'
import { api, PNG_1PX, trackingNumber } from '../support/factories.js'
import { useClient, useTestApp } from '../support/use-test-app.js'

const t = useTestApp()
const me = useClient(t)
let a: ReturnType<typeof api>
let m: Awaited<ReturnType<ReturnType<typeof api>['mailroom']>>
beforeAll(async () => {
  a = api(t, me)
  m = await a.mailroom()
  // These tests are about what a pickup selects and records; the signature rule (required at the
  // top by default) has its own file, pickup-proof.test.ts.
  await a.ok('PUT', `/api/v1/inboundsites/${m.siteId}`, { signatureRule: 'optional' }, 200)
})

type Errors = { errors: Array<{ additionalParameters: string; errorDescription: string; errorCode: string }> }

const add = async (pkg: Record<string, unknown> = {}, status?: string): Promise<string> =>
  (
    await a.ok('POST', '/api/v1/packages', {
      package: { trackingNumber: trackingNumber(), ...pkg },
      ...(status ? { lastActivity: { status, location: {} } } : {}),
    })
  ).packageId
const get = (id: string, type = 'DETAILED') => a.ok('GET', `/api/v1/packages/${id}?type=${type}`)
const codeOf = async (id: string): Promise<string> => (await get(id)).pickupCode
const pickup = (body: unknown, headers: Record<string, string> = {}) => a.call('POST', '/api/v1/pickups', body, headers)
const upload = async (): Promise<string> =>
  (await a.ok('POST', '/api/v1/packages/images', { base64: PNG_1PX }, 200)).tempURL
/** A receiver with `n` waiting parcels: its id, their ids, their code. */
async function recipient(n: number, name = 'Recipient') {
  const contactId = await a.contact('RECEIVER', name, { email: `${name.replace(/\W/g, '').toLowerCase()}@example.com` })
  const ids: string[] = []
  for (let i = 0; i < n; i++) ids.push(await add({ receiver: { contactId } }))
  return { contactId, ids, code: await codeOf(ids[0]!) }
}
const eventsOf = (packageIds: string[]) =>
  t.ctx.db
    .selectFrom('package_events')
    .select(['package_id', 'variant', 'event_name', 'data'])
    .where('package_id', 'in', packageIds)
    .where('event_name', '=', 'Delivered')
    .execute()
const fieldsOf = (res: { json(): unknown }) => (res.json() as Errors).errors.map((e) => e.additionalParameters)

describe('POST /api/v1/pickups', () => {
  itRefusesBadTokens(
    () => t,
    [
      { method: 'POST', url: '/api/v1/pickups', payload: { pickupCode: 'ABCDEF' } },
      { method: 'GET', url: '/api/v1/pickups/pku_x' },
      { method: 'GET', url: '/api/v1/pickups' },
    ],
  )

  it('hands three parcels over by code with a signature: all DELIVERED in one pickup, history and events show it', async () => {
    const r = await recipient(3, 'Ada Byron')
    expect(new Set(await Promise.all(r.ids.map(codeOf)))).toEqual(new Set([r.code]))
    const signature = await upload()
    const res = await pickup(
      {
        pickupCode: `${r.code.slice(0, 3)}-${r.code.slice(3)}`.toLowerCase(),
        images: [{ imageType: 'SIGNATURE', tempURL: signature }],
        comment: 'ID checked',
      },
      { 'x-user-name': 'Desk Clerk' },
    )
    expect(res.statusCode, res.body).toBe(201)
    const p = res.json()
    expect(p).toMatchObject({
      pickupCode: r.code,
      contactId: r.contactId,
      packageIds: r.ids,
      givenTo: { contactId: r.contactId, name: 'Ada Byron' },
      comment: 'ID checked',
      clerk: 'Desk Clerk',
      userName: me.clientId,
    })
    expect(p.pickupId).toMatch(/^pku_/)
    expect(p.images).toEqual([
      { imageId: signature.split('/').pop(), imageType: 'SIGNATURE', contentType: 'image/png', tempURL: signature },
    ])
    expect(await a.ok('GET', `/api/v1/pickups/${p.pickupId}`)).toEqual(p)

    for (const id of r.ids) {
      const rec = await get(id)
      expect(rec).toMatchObject({
        currentStatus: 'DELIVERED',
        deliveryClerk: 'Desk Clerk',
        deliveryTime: p.deliveredAt,
        givenTo: { contactId: r.contactId },
        pickupCode: r.code,
      })
      const last = (await get(id, 'ACTIVITIES')).activities.at(-1)
      expect(last).toMatchObject({ status: 'DELIVERED', pickupId: p.pickupId })
      expect(last.comment).toBe(`Pickup ${p.pickupId}: collected by Ada Byron. ID checked`)
    }
    const first = (await get(r.ids[0]!, 'IMAGES')).images
    expect(first).toMatchObject([{ imageLevel: 'ACTIVITY', imageType: 'SIGNATURE', tempURL: signature }])
    const events = await eventsOf(r.ids)
    expect(events.map((e) => e.package_id).sort()).toEqual([...r.ids].sort())
    for (const e of events) expect(e.data).toMatchObject({ currentStatus: 'DELIVERED', previousStatus: 'RECEIVED' })
    // The pickup row holds the whole hand-over.
    const row = await t.ctx.db.selectFrom('pickups').selectAll().where('pickup_id', '=', p.pickupId).executeTakeFirst()
    expect(row).toMatchObject({ code: r.code, package_ids: r.ids, clerk: 'Desk Clerk', given_to_name: 'Ada Byron' })

    // The code is used now.
    const again = await pickup({ pickupCode: r.code })
    expect(again.statusCode).toBe(400)
    expect(fieldsOf(again)).toEqual(['pickupCode'])
    expect(again.json().errors[0].errorDescription).toContain('already been used')
    // And a new parcel for the same recipient gets a new code.
    const later = await add({ receiver: { contactId: r.contactId } })
    expect(await codeOf(later)).not.toBe(r.code)
  })

  it('hands over a subset by packageIds; the rest stay waiting under the same code', async () => {
    const r = await recipient(3, 'Subset Sam')
    const res = await pickup({ pickupCode: r.code, packageIds: [r.ids[2], r.ids[0]] })
    expect(res.statusCode, res.body).toBe(201)
    expect(res.json().packageIds).toEqual([r.ids[2], r.ids[0]])
    expect((await get(r.ids[1]!)).currentStatus).toBe('RECEIVED')
    const rest = await pickup({ pickupCode: r.code })
    expect(rest.statusCode, rest.body).toBe(201)
    expect(rest.json().packageIds).toEqual([r.ids[1]])
  })

  it('hands over by contactId, to someone else by name', async () => {
    const r = await recipient(2, 'Busy Bee')
    const res = await pickup({ contactId: r.contactId, givenTo: { name: '  Neighbour Ned ' } })
    expect(res.statusCode, res.body).toBe(201)
    expect(res.json()).toMatchObject({ contactId: r.contactId, packageIds: r.ids, givenTo: { name: 'Neighbour Ned' } })
    expect(res.json().givenTo.contactId).toBeUndefined()
    expect(res.json().pickupCode).toBeUndefined()
    for (const id of r.ids) {
      expect(await get(id)).toMatchObject({ currentStatus: 'DELIVERED', givenTo: { contactId: r.contactId } })
      const last = (await get(id, 'ACTIVITIES')).activities.at(-1)
      expect(last.comment).toBe(`Pickup ${res.json().pickupId}: collected by Neighbour Ned on behalf of Busy Bee.`)
    }
    // By contact, the code is used too.
    expect(fieldsOf(await pickup({ pickupCode: r.code }))).toEqual(['pickupCode'])
    expect(fieldsOf(await pickup({ contactId: r.contactId }))).toEqual(['contactId'])
  })

  it('hands over to another contact, recorded as each package’s givenTo', async () => {
    const r = await recipient(1, 'Away Alice')
    const res = await pickup({ pickupCode: r.code, givenTo: { contactId: m.allId } })
    expect(res.statusCode, res.body).toBe(201)
    expect(res.json().givenTo).toEqual({ contactId: m.allId, name: 'Grace Hopper' })
    expect(await get(r.ids[0]!)).toMatchObject({
      givenTo: { contactId: m.allId },
      receiver: { contactId: r.contactId },
    })
    const last = (await get(r.ids[0]!, 'ACTIVITIES')).activities.at(-1)
    expect(last.comment).toBe(`Pickup ${res.json().pickupId}: collected by Grace Hopper on behalf of Away Alice.`)
  })

  it('refuses a wrong code, a malformed one, an unknown givenTo contact and a request naming neither code nor contact', async () => {
    const r = await recipient(1, 'Careful Carl')
    const wrong = await pickup({ pickupCode: r.code === 'ZZZZZZ' ? 'YYYYYY' : 'ZZZZZZ' })
    expect(wrong.statusCode).toBe(400)
    expect(wrong.json().errors[0]).toMatchObject({ additionalParameters: 'pickupCode', errorCode: 'validation_error' })
    expect(wrong.json().errors[0].errorDescription).toMatch(/^No such pickup code/)
    expect(fieldsOf(await pickup({ pickupCode: 'O0O0O0' }))).toEqual(['pickupCode'])
    expect(fieldsOf(await pickup({}))).toEqual(['pickupCode'])
    expect(fieldsOf(await pickup({ pickupCode: r.code, contactId: r.contactId }))).toEqual(['pickupCode'])
    expect(fieldsOf(await pickup({ pickupCode: r.code, givenTo: { contactId: 'con_nobody' } }))).toEqual([
      'givenTo.contactId',
    ])
    expect(fieldsOf(await pickup({ pickupCode: r.code, givenTo: { contactId: m.allId, name: 'X' } }))).toEqual([
      'givenTo',
    ])
    expect((await get(r.ids[0]!)).currentStatus).toBe('RECEIVED')
  })

  it('refuses, naming it, a listed package that is not waiting or not under the code, and writes nothing', async () => {
    const r = await recipient(2, 'Strict Stan')
    const delivered = await add({ receiver: { contactId: r.contactId } }, 'DELIVERED')
    const other = await add({ receiver: { contactId: m.receiverId } })
    const res = await pickup({ pickupCode: r.code, packageIds: [r.ids[0], delivered, other, 'pkg_nothing', r.ids[0]] })
    expect(res.statusCode).toBe(400)
    expect(fieldsOf(res)).toEqual(['packageIds[1]', 'packageIds[2]', 'packageIds[3]', 'packageIds[4]'])
    const [d1, d2, d3, d4] = res.json().errors.map((e: { errorDescription: string }) => e.errorDescription)
    expect(d1).toContain('DELIVERED')
    expect(d2).toContain('not waiting under this pickup code')
    expect(d2).not.toContain(r.code)
    expect(d3).toContain('No package')
    expect(d4).toContain('twice')
    for (const id of [...r.ids, other]) expect((await get(id)).currentStatus).not.toBe('DELIVERED')
  })

  it('is all or nothing: a proof image that cannot be attached leaves every package as it was', async () => {
    const r = await recipient(3, 'Atomic Ann')
    const res = await pickup({
      pickupCode: r.code,
      images: [{ imageType: 'SIGNATURE', tempURL: 'temp/images/img_gone' }],
    })
    expect(res.statusCode).toBe(400)
    expect(fieldsOf(res)).toEqual(['images[0].tempURL'])
    for (const id of r.ids) {
      expect((await get(id)).currentStatus).toBe('RECEIVED')
      expect((await get(id, 'ACTIVITIES')).activities).toHaveLength(1)
    }
    expect(await eventsOf(r.ids)).toEqual([])
    expect(await t.ctx.db.selectFrom('pickups').select('pickup_id').where('code', '=', r.code).execute()).toEqual([])
  })

  it('is all or nothing: a package that another desk changed before the row locks fails the whole pickup', async () => {
    const r = await recipient(2, 'Raced Ray')
    const signature = await upload()
    // Another desk moves the second package off this pickup between the resolution (which reads the
    // rows without locks) and the transaction: its check passes the first time and fails under the lock.
    const { packages } = t.ctx.receiving
    const original = packages.deliverTogether.bind(packages)
    let looks = 0
    packages.deliverTogether = async (actor, h) =>
      original(actor, { ...h, belongs: (row) => (row.package_id === r.ids[1] ? ++looks === 1 : h.belongs(row)) })
    let res
    try {
      res = await pickup({ pickupCode: r.code, images: [{ imageType: 'SIGNATURE', tempURL: signature }] })
    } finally {
      packages.deliverTogether = original
    }
    expect(looks).toBe(2)
    expect(res.statusCode).toBe(400)
    expect(fieldsOf(res)).toEqual(['pickupCode'])
    for (const id of r.ids) {
      expect((await get(id)).currentStatus).toBe('RECEIVED')
      expect((await get(id, 'ACTIVITIES')).activities).toHaveLength(1)
    }
    expect(await eventsOf(r.ids)).toEqual([])
    // The signature was not taken: the next try attaches it.
    const ok = await pickup({ pickupCode: r.code, images: [{ imageType: 'SIGNATURE', tempURL: signature }] })
    expect(ok.statusCode, ok.body).toBe(201)
    expect(ok.json().images).toHaveLength(1)
  })

  it('replays the first answer for a retry with the same Idempotency-Key', async () => {
    const r = await recipient(2, 'Retry Rita')
    const first = await pickup({ pickupCode: r.code }, { 'idempotency-key': `pickup-${r.code}` })
    expect(first.statusCode, first.body).toBe(201)
    const again = await pickup({ pickupCode: r.code }, { 'idempotency-key': `pickup-${r.code}` })
    expect(again.statusCode).toBe(201)
    expect(again.headers['idempotent-replayed']).toBe('true')
    expect(again.json()).toEqual(first.json())
    const rows = await t.ctx.db.selectFrom('pickups').select('pickup_id').where('code', '=', r.code).execute()
    expect(rows).toHaveLength(1)
  })

  it('keeps subscriptions apart: another subscription’s code is wrong, its pickups are not found', async () => {
    const r = await recipient(1, 'Tenant Tom')
    const res = await pickup({ pickupCode: r.code })
    expect(res.statusCode).toBe(201)
    const stranger = await t.newClient()
    const b = api(t, stranger)
    const theirContact = await b.contact('RECEIVER', 'Their Tina')
    const theirs = (
      await b.ok('POST', '/api/v1/packages', {
        package: { trackingNumber: trackingNumber(), receiver: { contactId: theirContact } },
      })
    ).packageId
    const theirCode = (await b.ok('GET', `/api/v1/packages/${theirs}?type=DETAILED`)).pickupCode
    const mine = await pickup({ pickupCode: theirCode })
    expect(mine.statusCode).toBe(400)
    expect(mine.json().errors[0].errorDescription).toMatch(/^No such pickup code/)
    expect(fieldsOf(await pickup({ contactId: theirContact }))).toEqual(['contactId'])
    expect(fieldsOf(await pickup({ pickupCode: r.code, packageIds: [theirs] }))).toEqual(['pickupCode'])
    expect((await b.call('GET', `/api/v1/pickups/${res.json().pickupId}`)).statusCode).toBe(404)
    expect((await b.ok('GET', `/api/v1/packages/${theirs}?type=DETAILED`)).currentStatus).toBe('RECEIVED')
  })
})

describe('GET /api/v1/pickups', () => {
  it('lists pickups newest first, paged, by contact and time; each says who collected, for whom, where and what', async () => {
    const at = async (contactId: string) =>
      (
        await a.ok('POST', '/api/v1/packages', {
          package: { trackingNumber: trackingNumber(), receiver: { contactId } },
          lastActivity: { status: 'RECEIVED', location: { inboundSiteId: m.shelfId } },
        })
      ).packageId as string
    const lia = await a.contact('RECEIVER', 'Lia List', { email: 'lia@example.com' })
    const ids = [await at(lia), await at(lia)]
    const before = t.clock.now().toISOString()
    t.clock.advance(1_000)
    const first = (
      await a.ok(
        'POST',
        '/api/v1/pickups',
        { contactId: lia, packageIds: [ids[0]], givenTo: { name: 'Kim Courier' } },
        201,
      )
    ).pickupId as string
    t.clock.advance(1_000)
    const middle = t.clock.now().toISOString()
    t.clock.advance(1_000)
    const signature = await upload()
    const second = (
      await a.ok(
        'POST',
        '/api/v1/pickups',
        { contactId: lia, images: [{ imageType: 'SIGNATURE', tempURL: signature }] },
        201,
      )
    ).pickupId as string

    const one = await a.ok('GET', `/api/v1/pickups/${first}`)
    expect(one).toMatchObject({
      pickupId: first,
      contactId: lia,
      packageIds: [ids[0]],
      givenTo: { name: 'Kim Courier' },
      onBehalfOf: { contactId: lia, name: 'Lia List' },
      inboundSites: [{ inboundSiteId: m.shelfId, name: 'Shelf 1' }],
      images: [],
    })
    const own = await a.ok('GET', `/api/v1/pickups/${second}`)
    expect(own.onBehalfOf).toBeUndefined()
    expect(own).toMatchObject({ givenTo: { contactId: lia, name: 'Lia List' }, packageIds: [ids[1]] })
    expect(own.images).toHaveLength(1)

    const list = (q: string) => a.ok('GET', `/api/v1/pickups?${q}`)
    expect(await list(`contactId=${lia}`)).toMatchObject({
      totalCount: 2,
      pickups: [{ pickupId: second }, { pickupId: first }],
    })
    expect(await list(`contactId=${lia}&size=1&page=2`)).toMatchObject({
      totalCount: 2,
      pickups: [{ pickupId: first }],
    })
    expect(await list(`contactId=${lia}&from=${middle}`)).toMatchObject({
      totalCount: 1,
      pickups: [{ pickupId: second }],
    })
    expect(await list(`contactId=${lia}&from=${before}&to=${middle}`)).toMatchObject({
      totalCount: 1,
      pickups: [{ pickupId: first }],
    })
    const all = await list('size=200')
    expect(all.totalCount).toBeGreaterThanOrEqual(2)
    const bad = await a.call('GET', '/api/v1/pickups?size=201&from=yesterday')
    expect(bad.statusCode).toBe(400)
    expect(fieldsOf(bad).sort()).toEqual(['from', 'size'])
    expect(fieldsOf(await a.call('GET', `/api/v1/pickups?from=${middle}&to=${before}`))).toEqual(['to'])
    // Another subscription sees none of them.
    const other = api(t, await t.newClient('pickups-list-other'))
    expect(await other.ok('GET', '/api/v1/pickups')).toEqual({ pickups: [], totalCount: 0 })
    expect((await other.call('GET', `/api/v1/pickups/${first}`)).statusCode).toBe(404)
  })
})

describe('guessing pickup codes', () => {
  const g = useTestApp({ PICKUP_CODE_FAILURE_LIMIT: '3', PICKUP_CODE_FAILURE_WINDOW_SECONDS: '60' })
  const desk = useClient(g)
  const otherDesk = useClient(g, 'shared-sub')

  it('answers 429 with Retry-After after the limit of wrong codes, even for a right one, until the window passes', async () => {
    const d = api(g, desk)
    const contactId = await d.contact('RECEIVER', 'Guessed Gus')
    const id = (
      await d.ok('POST', '/api/v1/packages', { package: { trackingNumber: trackingNumber(), receiver: { contactId } } })
    ).packageId
    const code = (await d.ok('GET', `/api/v1/packages/${id}?type=DETAILED`)).pickupCode
    const guess = (c: string) => d.call('POST', '/api/v1/pickups', { pickupCode: c, typedSignature: 'Gus Guesser' })
    const wrong = code === 'ZZZZZZ' ? 'YYYYYY' : 'ZZZZZZ'
    for (let i = 0; i < 3; i++) expect((await guess(wrong)).statusCode).toBe(400)
    const locked = await guess(code)
    expect(locked.statusCode).toBe(429)
    expect(Number(locked.headers['retry-after'])).toBeGreaterThan(0)
    expect(locked.json().errors[0]).toMatchObject({ additionalParameters: 'pickupCode', additionalCode: 'PCK-4290' })
    // By contact the desk can still hand over.
    expect((await d.call('GET', `/api/v1/packages/${id}?type=DETAILED`)).json().currentStatus).toBe('RECEIVED')
    g.clock.advance(61_000)
    const res = await guess(code)
    expect(res.statusCode, res.body).toBe(201)
  })

  it('refuses a parallel burst of wrong codes past the limit: each is counted before the next is checked', async () => {
    const burst = api(g, await g.newClient('burst-sub'))
    // A first request of the client warms what every later one reuses (token, caches). Then an open
    // transaction holds the embedded database's one connection while the burst arrives: every request
    // reaches the code check before any look-up answers, as twelve desks' would on a busy server.
    expect((await burst.call('GET', '/api/v1/pickups/pku_warm')).statusCode).toBe(404)
    const answers = await g.ctx.db.transaction().execute(async () => {
      const requests = Array.from({ length: 12 }, (_, i) =>
        burst.call('POST', '/api/v1/pickups', { pickupCode: `ZZZZ${'23456789ABCD'[i]!}Z` }).then((r) => r.statusCode),
      )
      await new Promise((resolve) => setTimeout(resolve, 200))
      return requests
    })
    const statuses = await Promise.all(answers)
    expect(statuses.filter((s) => s === 400)).toHaveLength(3)
    expect(statuses.filter((s) => s === 429)).toHaveLength(9)
  })

  it('counts the subscription as a whole, three times the limit across its clients', async () => {
    const clients = [
      otherDesk,
      await g.newClient('shared-sub'),
      await g.newClient('shared-sub'),
      await g.newClient('shared-sub'),
    ]
    let status = 0
    let n = 0
    for (const c of clients.slice(0, 3))
      for (let i = 0; i < 3; i++) {
        status = (await api(g, c).call('POST', '/api/v1/pickups', { pickupCode: 'ZZZZZZ' })).statusCode
        n++
      }
    expect(n).toBe(9)
    expect(status).toBe(400)
    // The subscription reached 9 = 3 × 3: a fourth client, which never failed, is refused too.
    expect((await api(g, clients[3]!).call('POST', '/api/v1/pickups', { pickupCode: 'ZZZZZZ' })).statusCode).toBe(429)
  })
})
