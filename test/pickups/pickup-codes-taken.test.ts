import { beforeAll, describe, expect, it, vi } from 'vitest'
import { api, trackingNumber } from '../support/factories.js'
import { useClient, useTestApp } from '../support/use-test-app.js'

// A drawn code that is already taken (one in 73,000 with ten thousand out; here forced): the
// packages that came with it get another, one code per receiver still.

const drawn = vi.hoisted(() => ({ queue: [] as string[] }))
vi.mock('../../src/pickups/model/pickup-code.js', async (importOriginal) => {
  const actual = await importOriginal<typeof import('../../src/pickups/model/pickup-code.js')>()
  return { ...actual, newPickupCode: () => drawn.queue.shift() ?? actual.newPickupCode() }
})

const t = useTestApp()
const me = useClient(t)
let a: ReturnType<typeof api>
beforeAll(async () => {
  a = api(t, me)
  await a.mailroom()
})

const add = async (contactId: string): Promise<string> =>
  (await a.ok('POST', '/api/v1/packages', { package: { trackingNumber: trackingNumber(), receiver: { contactId } } }))
    .packageId
const codeOf = async (id: string): Promise<string | undefined> =>
  (await a.ok('GET', `/api/v1/packages/${id}?type=DETAILED`)).pickupCode

describe('pickup codes drawn twice', () => {
  it("gives a receiver's parcels one new code when the code drawn for them is taken", async () => {
    const first = await a.contact('RECEIVER', 'Fay First')
    drawn.queue.push('AAAAAA')
    expect(await codeOf(await add(first))).toBe('AAAAAA')

    // Three adds at once draw the taken code; one drawn after it is theirs, not one each (written
    // together, the next one; apart, on PostgreSQL, whichever committed first).
    const second = await a.contact('RECEIVER', 'Sid Second')
    drawn.queue.push('AAAAAA', 'AAAAAA', 'AAAAAA', 'BBBBBB', 'CCCCCC', 'DDDDDD')
    const ids = await Promise.all([add(second), add(second), add(second)])
    const codes = new Set(await Promise.all(ids.map(codeOf)))
    expect(codes.size).toBe(1)
    const [code] = codes
    expect(['BBBBBB', 'CCCCCC', 'DDDDDD']).toContain(code)
    drawn.queue.length = 0

    // A corrected receiver with nothing waiting: the same.
    const third = await a.contact('RECEIVER', 'Tia Third')
    const [moved, stayed] = ids
    drawn.queue.push('AAAAAA', 'EEEEEE')
    await a.ok('PUT', `/api/v1/packages/${moved}`, { package: { receiver: { contactId: third } } }, 200)
    expect(await codeOf(moved)).toBe('EEEEEE')
    expect(await codeOf(stayed)).toBe(code)
  })
})
