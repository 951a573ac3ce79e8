import { expect, it } from 'vitest'
import { api, trackingNumber } from '../support/factories.js'
import { useClient, useTestApp } from '../support/use-test-app.js'
import { IMMEDIATE } from './support/arrivals.js'
import { useSmtpServer } from './support/smtp.js'

// Emails as people read them (issue 25.7): a parcel's place in words ("Mailroom 1, Building 1 —
// shelf A-3": the site, the building, then the shelf; never an id or a path code), and times in the
// time zone of the place's location.
const { smtp, env } = useSmtpServer()
const t = useTestApp(env)
const client = useClient(t)

it('says where a parcel waits in words, and when it was collected in the site’s time zone', async () => {
  const a = api(t, client)
  await a.ok('PUT', '/api/v1/notifications/settings', IMMEDIATE)
  const { locationId } = await a.ok('POST', '/api/v1/locations', {
    name: 'Tokyo office',
    address: { line1: '1-1 Marunouchi', city: 'Chiyoda', state: 'Tokyo', postalCode: '100-0005', country: 'JP' },
    timezone: 'Asia/Tokyo',
  })
  const mailroom = await a.site({ type: 'site', name: 'Mailroom 1', locationId })
  const building = await a.site({ type: 'building', name: 'Building 1', parent: mailroom })
  const shelf = await a.site({ type: 'shelf', name: 'A-3', parent: building })
  const kai = await a.contact('RECEIVER', 'Kai Place', { email: 'kai@example.com' })
  const number = trackingNumber('1ZPLACE')
  const { packageId } = await a.ok('POST', '/api/v1/packages', {
    package: { trackingNumber: number, receiver: { contactId: kai } },
    lastActivity: { status: 'RECEIVED', location: { inboundSiteId: shelf } },
  })
  smtp.clear()
  await t.ctx.notifications.runOnce()
  const [arrival] = await smtp.waitFor(1)
  expect(arrival!.mail.subject).toBe('A parcel is waiting for you at Mailroom 1, Building 1')
  expect(arrival!.mail.text).toContain(`- ${number}, at Mailroom 1, Building 1 — shelf A-3\n`)
  expect(arrival!.mail.text).toContain('Please collect it at Mailroom 1, Building 1.')
  expect(arrival!.mail.html).toContain('at Mailroom 1, Building 1 — shelf A-3')
  for (const id of [mailroom, building, shelf]) expect(arrival!.mail.text).not.toContain(id)

  smtp.clear()
  await a.ok('PUT', `/api/v1/packages/${packageId}`, {
    package: { givenTo: { contactId: kai } },
    lastActivity: { status: 'DELIVERED' },
  })
  const { deliveryTime } = await a.ok('GET', `/api/v1/packages/${packageId}?type=DETAILED`)
  await t.ctx.notifications.runOnce()
  const [receipt] = await smtp.waitFor(1)
  // Tokyo is UTC+9 all year: the hour the recipient's clock showed.
  const tokyo = new Date(Date.parse(deliveryTime as string) + 9 * 3600_000)
  const clock = `${tokyo.getUTCHours() % 12 || 12}:${String(tokyo.getUTCMinutes()).padStart(2, '0')}`
  expect(receipt!.mail.text).toMatch(
    new RegExp(`collected by Kai Place on [^\\n]*${clock} [AP]M GMT\\+9 at Mailroom 1`),
  )
  expect(receipt!.mail.text).not.toContain('GMT\n')
})
