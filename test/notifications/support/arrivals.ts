import type { api } from '../../support/factories.js'
import { trackingNumber } from '../../support/factories.js'

/** Notification settings that email each arrival at once, with no reminders. */
export const IMMEDIATE = {
  enabled: true,
  arrivalBatchSeconds: 0,
  reminderAfterHours: [],
  finalNoticeAfterHours: null,
  templates: {},
}

/**
 * `count` recipients (`<name> i`, `<mailbox>i@example.com`), one parcel each received at the
 * mailroom's shelf, emails sent at once: `count` arrival emails to come.
 */
export async function arrivalsFor(
  a: ReturnType<typeof api>,
  count: number,
  who: { name: string; mailbox: string; prefix: string },
): Promise<void> {
  const room = await a.mailroom()
  await a.ok('PUT', '/api/v1/notifications/settings', IMMEDIATE)
  for (let i = 0; i < count; i++) {
    const contactId = await a.contact('RECEIVER', `${who.name} ${i}`, { email: `${who.mailbox}${i}@example.com` })
    await a.ok('POST', '/api/v1/packages', {
      package: { trackingNumber: trackingNumber(who.prefix), receiver: { contactId } },
      lastActivity: { status: 'RECEIVED', location: { inboundSiteId: room.shelfId } },
    })
  }
}
