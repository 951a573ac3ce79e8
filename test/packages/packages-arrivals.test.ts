import { sql } from 'kysely'
import { beforeAll, describe, expect, it } from 'vitest'
import { api, trackingNumber } from '../support/factories.js'
import { useClient, useTestApp } from '../support/use-test-app.js'

// An add writes its arrival event with the package (nothing shared: a recipient's adds do not wait
// for each other); the notification worker consumes the outbox through its cursor into arrival
// batches. Each arrival is taken once, into its recipient's one open batch, however many workers
// consume at once.

const t = useTestApp()
const me = useClient(t)
let a: ReturnType<typeof api>
beforeAll(async () => {
  a = api(t, me)
  await a.mailroom()
})

type Listed = { kind: string; packageIds: string[]; contactId?: string }
const add = async (contactId: string): Promise<string> =>
  (await a.ok('POST', '/api/v1/packages', { package: { trackingNumber: trackingNumber(), receiver: { contactId } } }))
    .packageId
const arrivalsOf = async (contactId: string): Promise<Listed[]> =>
  ((await a.ok('GET', `/api/v1/notifications?contactId=${contactId}`)).notifications as Listed[]).filter(
    (n) => n.kind === 'ARRIVAL',
  )
/** Arrivals in the outbox that the notifications have not consumed yet. */
const queued = async () =>
  Number(
    (
      await sql<{ n: string }>`
        select count(*) as n from package_events where event_name = 'Acceptance' and notified_at is null`.execute(
        t.ctx.db,
      )
    ).rows[0]!.n,
  )
const settings = (over: Record<string, unknown>) =>
  a.ok('PUT', '/api/v1/notifications/settings', {
    enabled: true,
    arrivalBatchSeconds: 60,
    reminderAfterHours: [],
    finalNoticeAfterHours: null,
    templates: {},
    ...over,
  })

describe('arrivals of adds', () => {
  it('gathers concurrent adds for two recipients into one batch each, once, with workers gathering at once', async () => {
    await settings({})
    const [ivy, jon] = [await a.contact('RECEIVER', 'Ivy Many'), await a.contact('RECEIVER', 'Jon Few')]
    const ivys = await Promise.all(Array.from({ length: 6 }, () => add(ivy)))
    const jons = await Promise.all(Array.from({ length: 3 }, () => add(jon)))
    expect(await queued()).toBe(9)
    await Promise.all([t.ctx.notifications.runOnce(), t.ctx.notifications.runOnce()])
    expect(await queued()).toBe(0)
    const [ivyBatch] = await arrivalsOf(ivy)
    expect([...ivyBatch!.packageIds].sort()).toEqual([...ivys].sort())
    expect((await arrivalsOf(jon)).map((n) => [...n.packageIds].sort())).toEqual([[...jons].sort()])
    expect(await arrivalsOf(ivy)).toHaveLength(1)

    // Later arrivals join the batch still open (not due before a minute after the first)…
    t.clock.advance(30_000)
    const later = await add(ivy)
    await t.ctx.notifications.runOnce()
    expect((await arrivalsOf(ivy)).map((n) => n.packageIds.length)).toEqual([7])
    expect((await arrivalsOf(ivy))[0]!.packageIds).toContain(later)
    // …and once it left, the next opens another.
    t.clock.advance(31_000)
    await t.ctx.notifications.runOnce()
    const next = await add(ivy)
    await t.ctx.notifications.runOnce()
    const batches = await arrivalsOf(ivy)
    expect(batches).toHaveLength(2)
    expect(batches.map((n) => n.packageIds)).toContainEqual([next])
  })

  it('drops the arrivals of a subscription with notifications off, and those of a deleted contact', async () => {
    await settings({ enabled: false })
    const kim = await a.contact('RECEIVER', 'Kim Quiet')
    await add(kim)
    await t.ctx.notifications.runOnce()
    expect(await queued()).toBe(0)
    expect(await arrivalsOf(kim)).toEqual([])

    await settings({})
    const lou = await a.contact('RECEIVER', 'Lou Gone')
    await add(lou)
    await a.ok('DELETE', `/api/v1/contacts/${lou}`, undefined, 200)
    await t.ctx.notifications.runOnce()
    expect(await queued()).toBe(0)
    expect(await arrivalsOf(lou)).toEqual([])
  })
})
