import { beforeAll, describe, expect, it } from 'vitest'
import { api, trackingNumber } from '../support/factories.js'
import { useClient, useTestApp } from '../support/use-test-app.js'
import { newPickupCode, normalizePickupCode, PICKUP_CODE_ALPHABET } from '../../src/pickups/model/pickup-code.js'
import { PICKUP_CODE_RETENTION_DAYS } from '../../src/pickups/jobs/pickup-codes-retention.js'
import { runHousekeeping } from '../../src/app/housekeeping.js'

const t = useTestApp()
const me = useClient(t)
let a: ReturnType<typeof api>
let m: Awaited<ReturnType<ReturnType<typeof api>['mailroom']>>
beforeAll(async () => {
  a = api(t, me)
  m = await a.mailroom()
})

const add = async (pkg: Record<string, unknown> = {}, status?: string): Promise<string> =>
  (
    await a.ok('POST', '/api/v1/packages', {
      package: { trackingNumber: trackingNumber(), ...pkg },
      ...(status ? { lastActivity: { status, location: {} } } : {}),
    })
  ).packageId
const codeOf = async (id: string): Promise<string | undefined> =>
  (await a.ok('GET', `/api/v1/packages/${id}?type=DETAILED`)).pickupCode

describe('pickup codes, pure', () => {
  it('draws six characters of the alphabet, uniformly from the bytes below 240', () => {
    const bytes = [255, 240, 0, 29, 30, 239, 1, 2, 3, 4, 5, 6]
    // 255 and 240 are drawn again; 0 → '2', 29 → 'Z', 30 → '2', 239 → 'Z', 1 → '3', 2 → '4'.
    expect(newPickupCode(() => Uint8Array.from(bytes))).toBe('2Z2Z34')
    expect(PICKUP_CODE_ALPHABET[29]).toBe('Z')
    for (let i = 0; i < 200; i++) expect(newPickupCode()).toMatch(/^[23456789ABCDEFGHJKMNPQRSTVWXYZ]{6}$/)
  })

  it('reads a code as typed: any case, spaces and hyphens ignored; nothing that cannot be one', () => {
    expect(normalizePickupCode(' k7q-4mx ')).toBe('K7Q4MX')
    expect(normalizePickupCode('K7Q4M0')).toBeUndefined()
    expect(normalizePickupCode('K7Q4M')).toBeUndefined()
    expect(normalizePickupCode('K7Q4MXX')).toBeUndefined()
    expect(normalizePickupCode('ILOU23')).toBeUndefined()
  })
})

describe('pickup codes on packages', () => {
  it("gives a waiting package a code, shared by its receiver's waiting parcels; other recipients get others", async () => {
    const ada1 = await add({ receiver: { contactId: m.receiverId } })
    const ada2 = await add({ receiver: { contactId: m.receiverId } }, 'READY_FOR_PICKUP')
    const grace = await add({ receiver: { contactId: m.allId } })
    const nobody1 = await add()
    const nobody2 = await add()
    const code = await codeOf(ada1)
    expect(code).toMatch(/^[23456789ABCDEFGHJKMNPQRSTVWXYZ]{6}$/)
    expect(await codeOf(ada2)).toBe(code)
    const others = [await codeOf(grace), await codeOf(nobody1), await codeOf(nobody2)]
    for (const c of others) expect(c).toMatch(/^[23456789ABCDEFGHJKMNPQRSTVWXYZ]{6}$/)
    expect(new Set([code, ...others]).size).toBe(4)
  })

  it('gives none to a package that does not arrive waiting (delivered, announced)', async () => {
    const delivered = await add({ receiver: { contactId: m.receiverId } }, 'DELIVERED')
    const announced = await add({ receiver: { contactId: m.receiverId } }, 'IN_TRANSIT')
    expect(await codeOf(delivered)).toBeUndefined()
    expect(await codeOf(announced)).toBeUndefined()
  })

  it('gives one when an announced package arrives, or a delivered one is set back: the receiver’s waiting code', async () => {
    const someone = await a.contact('RECEIVER', 'Annie Announced')
    const announced = await add({ receiver: { contactId: someone } }, 'IN_TRANSIT')
    expect(await codeOf(announced)).toBeUndefined()
    await a.ok('PUT', `/api/v1/packages/${announced}`, {
      package: {},
      lastActivity: { status: 'RECEIVED', location: {} },
    })
    const code = await codeOf(announced)
    expect(code).toMatch(/^[23456789ABCDEFGHJKMNPQRSTVWXYZ]{6}$/)
    const next = await add({ receiver: { contactId: someone } })
    expect(await codeOf(next)).toBe(code)
    const delivered = await add({ receiver: { contactId: someone } }, 'DELIVERED')
    await a.ok('PUT', `/api/v1/packages/${delivered}`, {
      package: {},
      lastActivity: { status: 'READY_FOR_PICKUP', location: {} },
    })
    expect(await codeOf(delivered)).toBe(code)
    // A change that keeps it waiting keeps its code.
    await a.ok('PUT', `/api/v1/packages/${next}`, { package: { comment: 'top shelf' } })
    expect(await codeOf(next)).toBe(code)
  })

  it('shares one code among concurrent first arrivals for one recipient, written together or not', async () => {
    const someone = await a.contact('RECEIVER', 'Barbara Liskov')
    const ids = await Promise.all(Array.from({ length: 12 }, () => add({ receiver: { contactId: someone } })))
    const codes = new Set(await Promise.all(ids.map(codeOf)))
    expect(codes.size).toBe(1)
  })

  it('finds the packages of a code through search, in any case and with a hyphen', async () => {
    const someone = await a.contact('RECEIVER', 'Edsger Dijkstra')
    const ids = [await add({ receiver: { contactId: someone } }), await add({ receiver: { contactId: someone } })]
    const code = (await codeOf(ids[0]!))!
    const typed = `${code.slice(0, 3)}-${code.slice(3)}`.toLowerCase()
    const found = await a.ok('GET', `/api/v1/packages?search=${encodeURIComponent(`pickupCode:${typed}`)}`)
    expect(found.totalCount).toBe(2)
    expect(found.packages.map((p: { packageId: string }) => p.packageId).sort()).toEqual([...ids].sort())
    const starts = await a.ok('GET', `/api/v1/packages?search=pickupCode:${code.slice(0, 2)}&searchPosition=starts`)
    expect(starts.packages.map((p: { packageId: string }) => p.packageId)).toEqual(expect.arrayContaining(ids))
    const csv = await a.call(
      'POST',
      '/api/v1/packages/search',
      { pickupCode: 'Code', packageId: 'Id' },
      { accept: 'text/csv' },
    )
    expect(csv.statusCode).toBe(200)
    expect(csv.body).toContain(`${code},${ids[0]}`)
  })
})

describe('pickup codes, kept then purged', () => {
  const DAY = 86_400_000
  const housekeeping = () => runHousekeeping({ db: t.ctx.db, clock: t.clock, images: t.ctx.receiving.images })
  const pickup = (code: string) => a.call('POST', '/api/v1/pickups', { pickupCode: code, typedSignature: 'Dana Done' })
  const refresh = async () => {
    a = api(t, await t.refresh(me))
  }

  it(`refuses a used code as used for ${PICKUP_CODE_RETENTION_DAYS} days after its parcels were finished, then forgets it; waiting codes stay`, async () => {
    const done = await a.contact('RECEIVER', 'Dana Done')
    const used = (await codeOf(await add({ receiver: { contactId: done } })))!
    expect((await pickup(used)).statusCode).toBe(201)
    const waits = await a.contact('RECEIVER', 'Walt Waits')
    const waiting = (await codeOf(await add({ receiver: { contactId: waits } })))!
    const announced = await a.contact('RECEIVER', 'Ann Announced')
    const inTransit = await add({ receiver: { contactId: announced } })
    await a.ok('PUT', `/api/v1/packages/${inTransit}`, { package: {}, lastActivity: { status: 'IN_TRANSIT' } })
    const transitCode = (await codeOf(inTransit))!
    const registered = async (code: string) =>
      (await t.ctx.db.selectFrom('pickup_codes').select('code').where('code', '=', code).executeTakeFirst()) !==
      undefined

    t.clock.advance((PICKUP_CODE_RETENTION_DAYS - 1) * DAY)
    await refresh()
    expect((await housekeeping()).pickupCodes).toBe(0)
    const still = await pickup(used)
    expect(still.statusCode).toBe(400)
    expect(still.json().errors[0].errorDescription).toMatch(/has already been used/)

    t.clock.advance(2 * DAY)
    await refresh()
    expect((await housekeeping()).pickupCodes).toBeGreaterThanOrEqual(1)
    expect(await registered(used)).toBe(false)
    const forgotten = await pickup(used)
    expect(forgotten.statusCode).toBe(400)
    expect(forgotten.json().errors[0].errorDescription).toBe('No such pickup code.')
    // A code with a parcel still waiting, or announced and coming back with it, is kept.
    expect(await registered(waiting)).toBe(true)
    expect(await registered(transitCode)).toBe(true)
    expect((await pickup(waiting)).statusCode).toBe(201)
  })
})
