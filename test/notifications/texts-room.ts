import { beforeAll, beforeEach } from 'vitest'
import { api, trackingNumber } from '../support/factories.js'
import { useClient, useTestApp } from '../support/use-test-app.js'

/**
 * What every file on texts starts from, whatever the provider: the app, a mailroom with
 * notifications on (arrivals batched for 60 s, no reminders), and the steps the tests share. Call
 * inside a describe block after starting the servers `env` names; read the fields inside tests.
 * Each test starts with a token issued now (the tests move the clock by hours).
 */
export function useTextsRoom(env: Record<string, string>, trackingPrefix: string) {
  const t = useTestApp(env)
  const client = useClient(t)
  type Api = ReturnType<typeof api>
  let a: Api
  let room: Awaited<ReturnType<Api['mailroom']>>
  let carrierId = ''
  const addFor = async (receiverId: string, siteId = room.shelfId): Promise<string> => {
    const body = await a.ok('POST', '/api/v1/packages', {
      package: {
        trackingNumber: trackingNumber(trackingPrefix),
        carrier: { carrierId },
        sender: { contactId: room.senderId },
        receiver: { contactId: receiverId },
      },
      lastActivity: { status: 'RECEIVED', location: { inboundSiteId: siteId } },
    })
    return body.packageId as string
  }
  const s = {
    t,
    client,
    get a() {
      return a
    },
    get room() {
      return room
    },
    addFor,
    async list(query: string): Promise<Array<Record<string, unknown>>> {
      return (await a.ok('GET', `/api/v1/notifications?${query}`)).notifications as Array<Record<string, unknown>>
    },
    /** A token issued now (the clock moved by hours since the test began). */
    async refresh(): Promise<void> {
      a = api(t, await t.refresh(client))
    },
    /** One parcel for the recipient at the site, its batch closed and the worker run once. */
    async arriveAndSend(receiverId: string, siteId?: string): Promise<string> {
      return (await s.arriveAllAndSend(receiverId, 1, siteId))[0]!
    },
    /** `n` parcels for the recipient in one batch, closed, and the worker run once. */
    async arriveAllAndSend(receiverId: string, n: number, siteId?: string): Promise<string[]> {
      const ids: string[] = []
      for (let i = 0; i < n; i++) ids.push(await addFor(receiverId, siteId))
      t.clock.advance(61_000)
      await t.ctx.notifications.runOnce()
      return ids
    },
  }
  beforeAll(async () => {
    a = api(t, client)
    room = await a.mailroom()
    const carriers = await a.ok('GET', '/api/v1/carriers/catalog')
    carrierId = (carriers.carriers as Array<{ carrierId: string; name: string }>).find(
      (c) => c.name === 'UPS',
    )!.carrierId
    await a.ok('PUT', '/api/v1/notifications/settings', {
      enabled: true,
      arrivalBatchSeconds: 60,
      reminderAfterHours: [],
      finalNoticeAfterHours: null,
      templates: {},
    })
  })
  beforeEach(() => s.refresh())
  return s
}
