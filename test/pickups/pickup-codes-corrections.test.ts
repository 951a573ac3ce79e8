import { beforeAll, describe, expect, it } from 'vitest'
import { api, trackingNumber } from '../support/factories.js'
import { useClient, useTestApp } from '../support/use-test-app.js'

// A waiting package's code is its receiver's current one, after any change: a corrected receiver,
// a package set back to waiting or un-archived, and concurrent writes for one receiver.

const t = useTestApp()
const me = useClient(t)
let a: ReturnType<typeof api>
beforeAll(async () => {
  a = api(t, me)
  await a.mailroom()
})

const CODE = /^[23456789ABCDEFGHJKMNPQRSTVWXYZ]{6}$/
const add = async (contactId: string, status?: string): Promise<string> =>
  (
    await a.ok('POST', '/api/v1/packages', {
      package: { trackingNumber: trackingNumber(), receiver: { contactId } },
      ...(status ? { lastActivity: { status, location: {} } } : {}),
    })
  ).packageId
const codeOf = async (id: string): Promise<string | undefined> =>
  (await a.ok('GET', `/api/v1/packages/${id}?type=DETAILED`)).pickupCode
const put = (id: string, body: Record<string, unknown>) => a.ok('PUT', `/api/v1/packages/${id}`, body, 200)
const receive = (id: string) => put(id, { package: {}, lastActivity: { status: 'RECEIVED', location: {} } })
const pickup = (pickupCode: string) =>
  a.call('POST', '/api/v1/pickups', { pickupCode, givenTo: { name: 'Desk test' }, typedSignature: 'Desk test' })
const person = (name: string) => a.contact('RECEIVER', name)

describe('pickup codes after corrections', () => {
  it("gives a package whose receiver is corrected the new receiver's code; the old receiver's parcels keep theirs", async () => {
    const ada = await person('Ada Corrected')
    const bob = await person('Bob Rightful')
    const [p1, p2] = [await add(ada), await add(ada)]
    const q = await add(bob)
    const [adaCode, bobCode] = [await codeOf(p1), await codeOf(q)]
    expect(adaCode).not.toBe(bobCode)

    await put(p1, { package: { receiver: { contactId: bob } } })
    expect(await codeOf(p1)).toBe(bobCode)
    expect(await codeOf(p2)).toBe(adaCode)

    // To a receiver with nothing waiting: a code of that receiver's own, which its next parcel shares.
    const cleo = await person('Cleo Fresh')
    await put(p2, { package: { receiver: { contactId: cleo } } })
    const cleoCode = await codeOf(p2)
    expect(cleoCode).toMatch(CODE)
    expect(cleoCode).not.toBe(adaCode)
    expect(await codeOf(await add(cleo))).toBe(cleoCode)

    // Ada's old code collects nothing of Bob's or Cleo's.
    const res = await pickup(adaCode!)
    expect(res.statusCode).toBe(400)
    const bobs = await pickup(bobCode!)
    expect(bobs.statusCode, bobs.body).toBe(201)
    expect([...(bobs.json().packageIds as string[])].sort()).toEqual([p1, q].sort())
  })

  it("gives a package set back to waiting its receiver's current code, not the one used when it left", async () => {
    const dora = await person('Dora Returned')
    const first = await add(dora)
    const used = (await codeOf(first))!
    expect((await pickup(used)).statusCode).toBe(201)
    // Set back: nothing of Dora's waits, so a new code, not the used one.
    await receive(first)
    const fresh = (await codeOf(first))!
    expect(fresh).toMatch(CODE)
    expect(fresh).not.toBe(used)
    // Another parcel arrives, then the first is handed over and set back again: it joins the waiting code.
    const second = await add(dora)
    expect(await codeOf(second)).toBe(fresh)
    await put(first, { package: { givenTo: { contactId: dora } }, lastActivity: { status: 'DELIVERED' } })
    await receive(first)
    expect(await codeOf(first)).toBe(fresh)
    const res = await pickup(fresh)
    expect(res.statusCode, res.body).toBe(201)
    expect([...(res.json().packageIds as string[])].sort()).toEqual([first, second].sort())
  })

  it('gives an un-archived package a current code when its old one was used meanwhile', async () => {
    const eve = await person('Eve Unarchived')
    const [kept, archived] = [await add(eve), await add(eve)]
    const used = (await codeOf(kept))!
    expect(await codeOf(archived)).toBe(used)
    await a.ok('PATCH', `/api/v1/packages/${archived}/archive`, { archived: true }, 200)
    expect((await pickup(used)).statusCode).toBe(201)
    await a.ok('PATCH', `/api/v1/packages/${archived}/archive`, { archived: false }, 200)
    const now = (await codeOf(archived))!
    expect(now).toMatch(CODE)
    expect(now).not.toBe(used)
    const res = await pickup(now)
    expect(res.statusCode, res.body).toBe(201)
    expect(res.json().packageIds).toEqual([archived])
  })

  it('gives one receiver one waiting code when adds, corrections and un-archives for it race', async () => {
    const zed = await person('Zed Raced')
    const others = await Promise.all(['Olga', 'Otto', 'Oona', 'Omar'].map((n) => person(`${n} Other`)))
    // Zed's earlier parcels, archived while waiting: Zed has nothing waiting, they hold an old code.
    const shelved = [await add(zed), await add(zed)]
    for (const id of shelved) await a.ok('PATCH', `/api/v1/packages/${id}/archive`, { archived: true }, 200)
    const misfiled = await Promise.all(others.map((o) => add(o)))
    const announced = [await add(zed, 'IN_TRANSIT'), await add(zed, 'IN_TRANSIT')]
    const added: string[] = []
    await Promise.all([
      ...Array.from({ length: 8 }, async () => added.push(await add(zed))),
      ...misfiled.map((id) => put(id, { package: { receiver: { contactId: zed } } })),
      ...shelved.map((id) => a.ok('PATCH', `/api/v1/packages/${id}/archive`, { archived: false }, 200)),
      ...announced.map(receive),
    ])
    const waiting = [...added, ...misfiled, ...shelved, ...announced]
    const codes = new Set(await Promise.all(waiting.map(codeOf)))
    expect(codes.size).toBe(1)
    const [code] = codes
    expect(code).toMatch(CODE)
    const res = await pickup(code!)
    expect(res.statusCode, res.body).toBe(201)
    expect([...(res.json().packageIds as string[])].sort()).toEqual([...waiting].sort())
  })
})
