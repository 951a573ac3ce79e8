import { describe, expect, it } from 'vitest'
import { newYorkAt, useSmsApp } from './sms-app.js'

describe('quiet hours per site (issue 29), through the inbound sites API', () => {
  const s = useSmsApp()
  const now = () => s.t.clock.now()

  it('a site’s own window holds a text the facility window would not; its shelf inherits it; null falls back', async () => {
    // The facility's window is over an hour ago: it would let the text go now.
    const facility = { start: newYorkAt(now(), -3), end: newYorkAt(now(), -1) }
    await s.a.ok('PUT', '/api/v1/notifications/sms/settings', s.smsSettings({ quietHours: facility }))
    // The building (above the shelf the parcels wait on) holds texts from an hour ago to two hours on.
    const own = { start: newYorkAt(now(), -1), end: newYorkAt(now(), 2) }
    await s.a.ok('PUT', `/api/v1/inboundsites/${s.room.buildingId}`, { quietHours: own })
    const sites = (await s.a.ok('GET', `/api/v1/inboundsites?searchBy=ancestorlist:${s.room.siteId}`))
      .inboundSites as Array<{ inboundSiteId: string; quietHours?: unknown }>
    expect(sites.find((x) => x.inboundSiteId === s.room.buildingId)!.quietHours).toEqual(own)
    // The shelf shows only what it set itself: nothing.
    expect(sites.find((x) => x.inboundSiteId === s.room.shelfId)).not.toHaveProperty('quietHours')

    const r = await s.texter(['sms'])
    s.provider.clear()
    const p = await s.arriveAndSend(r.id)
    expect(s.provider.requests).toHaveLength(0)
    const held = (await s.list(`packageId=${p}`))[0]!
    expect(held).toMatchObject({ status: 'pending', channel: 'sms' })
    expect(held.lastError).toContain('quiet hours')

    // Cleared: the shelf falls back to the facility's window, which is over: the text goes.
    await s.a.ok('PUT', `/api/v1/inboundsites/${s.room.buildingId}`, { quietHours: null })
    const building = (await s.a.ok('GET', `/api/v1/inboundsites?searchBy=parent:${s.room.siteId}`)).inboundSites[0]
    expect(building).not.toHaveProperty('quietHours')
    s.t.clock.advance(1_000)
    await s.t.ctx.notifications.runOnce()
    expect(s.provider.requests).toHaveLength(0) // still waiting for the end it was given
    s.t.clock.advance(2 * 3_600_000)
    await s.t.ctx.notifications.runOnce()
    expect(s.provider.requests).toHaveLength(1)

    const q = await s.arriveAndSend(r.id)
    expect((await s.list(`packageId=${q}`))[0]).toMatchObject({ status: 'sent' })
    expect(s.provider.requests).toHaveLength(2)
    // And the facility's window, once it covers now, holds the shelf's texts again.
    const cover = { start: newYorkAt(now(), -1), end: newYorkAt(now(), 1) }
    await s.a.ok('PUT', '/api/v1/notifications/sms/settings', s.smsSettings({ quietHours: cover }))
    const h = await s.arriveAndSend(r.id)
    expect((await s.list(`packageId=${h}`))[0]).toMatchObject({ status: 'pending' })
    expect(s.provider.requests).toHaveLength(2)
  })

  it('refuses a window that is not HH:MM, naming the field', async () => {
    const res = await s.a.call('PUT', `/api/v1/inboundsites/${s.room.shelfId}`, {
      quietHours: { start: '24:00', end: '07:00' },
    })
    expect(res.statusCode).toBe(400)
    expect(res.json().errors[0].additionalParameters).toBe('quietHours.start')
  })
})
