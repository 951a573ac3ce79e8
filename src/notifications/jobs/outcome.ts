import type { Db } from '../../platform/db/database.js'
import { inTransaction } from '../../platform/db/transaction.js'
import type { Clock } from '../../platform/kit/clock.js'
import type { IdGenerator } from '../../platform/kit/ids.js'
import { backoffDelay } from '../../platform/jobs/backoff.js'
import { appendPackageEvents, handOverPickups } from '../../packages/index.js'
import { collectorsOf, type Collector } from '../../pickups/index.js'
import type { PackageView } from '../model/compose.js'
import { webhookEventOf, type NotificationStatus } from '../model/kinds.js'
import { recordOutcome } from '../store/claim.js'
import type { NotificationRow } from '../store/tables.js'
import type { RecipientContact } from './worker.js'

// What becomes of a claimed email, recorded as soon as it is known and only while the claim is
// still this worker's: settled (sent, suppressed, failed; published as webhook events in the same
// transaction, through the packages domain, which orders each package's events) or pending again after the one back-off (platform/jobs/backoff.ts).

/** Who collected the parcels of a PICKED_UP receipt (in its webhook events as `notification.collectedBy`). */
export interface CollectedBy {
  name: string
  contactId?: string
  /** The recipient, when someone else collected on their behalf. */
  onBehalfOf?: { contactId: string; name?: string }
}

/** The longest delay between two attempts of an email. */
const MAX_RETRY_DELAY_MS = 6 * 3600_000

export function createOutcomes(deps: {
  db: Db
  clock: Clock
  ids: IdGenerator
  workerId: string
  retryBaseMs: number
  random: () => number
  onEventsCommitted?: () => void
}) {
  const { db, clock, ids, workerId } = deps

  async function settle(
    n: NotificationRow,
    status: Exclude<NotificationStatus, 'pending'>,
    packages: PackageView[],
    contact: RecipientContact | undefined,
    lastError: string | null,
    collector?: CollectedBy,
    /** A text: its channel and number (a notification becomes its text when the recipient chose texts only). */
    text?: { to: string },
  ): Promise<boolean> {
    const now = clock.now()
    // The address mailed, or that would have been: the contact's at this moment, not the row's.
    const to = text ? text.to : (contact?.email ?? n.to_address)
    const channel = text ? ('sms' as const) : n.channel
    const held = await inTransaction(db, async (trx) => {
      const ok = await recordOutcome(
        trx,
        { notificationId: n.notification_id, workerId, attempts: n.attempts },
        {
          status,
          lastError,
          sentAt: status === 'sent' ? now : status === 'unconfirmed' ? n.send_started_at : null,
          now,
          to,
          ...(text ? { channel: 'sms' as const } : {}),
        },
      )
      if (!ok) return false
      const notification = {
        notificationId: n.notification_id,
        kind: n.kind,
        channel,
        status,
        step: n.step || undefined,
        to: to || undefined,
        packageIds: packages.map((p) => p.packageId),
        contact: contact
          ? { contactId: contact.contactId, name: contact.name, email: contact.email, phone: contact.phone }
          : { contactId: n.contact_id },
        ...(collector ? { collectedBy: collector } : {}),
      }
      // A failure is also an exception (issue 30.3): NotificationFailed after the kind's own event,
      // written with the outcome, so exactly once (the outcome is recorded once, under the claim).
      const names =
        status === 'failed' ? [webhookEventOf(n.kind), 'NotificationFailed' as const] : [webhookEventOf(n.kind)]
      await appendPackageEvents(
        trx,
        packages.flatMap((p) =>
          names.map((eventName) => ({
            eventId: ids('evt_'),
            subId: n.sub_id,
            packageId: p.packageId,
            variant: 'tracking' as const,
            eventName,
            occurredAt: now,
            data: {
              packageId: p.packageId,
              trackingNumber: p.trackingNumber,
              currentStatus: p.currentStatus,
              previousStatus: p.currentStatus,
              currentLocation: p.currentLocation ?? null,
              notification,
            },
          })),
        ),
      )
      return true
    })
    if (held && packages.length > 0) deps.onEventsCommitted?.()
    return held
  }

  /**
   * PICKED_UP: who collected. A one-step pickup records it (a name given at the desk, another
   * contact); otherwise the packages' givenTo. `onBehalfOf` names the recipient when someone else
   * collected for them.
   */
  async function collectedBy(
    n: NotificationRow,
    packages: PackageView[],
    contact: RecipientContact | undefined,
  ): Promise<CollectedBy | undefined> {
    if (n.kind !== 'PICKED_UP' || packages.length === 0) return undefined
    // The packages domain knows each parcel's last hand-over; the pickups domain who collected there.
    const handedAt = await handOverPickups(
      db,
      n.sub_id,
      packages.map((p) => p.packageId),
    )
    const collectors = await collectorsOf(db, n.sub_id, [...new Set(handedAt.values())])
    const picked: Collector | undefined = packages
      .map((p) => collectors.get(handedAt.get(p.packageId) ?? ''))
      .find(Boolean)
    const given = packages.find((p) => p.givenTo)?.givenTo
    const who = picked ? { name: picked.name, contactId: picked.contactId } : given
    if (!who) return undefined
    const self = who.contactId !== undefined && who.contactId === n.contact_id
    return {
      name: who.name,
      ...(who.contactId ? { contactId: who.contactId } : {}),
      ...(self ? {} : { onBehalfOf: { contactId: n.contact_id, ...(contact ? { name: contact.name } : {}) } }),
    }
  }

  /** `clearSendMarker`: a text the provider refused or failed for certain, sent afresh next time (recordOutcome). */
  async function retryLater(n: NotificationRow, lastError: string, opts: { clearSendMarker?: boolean } = {}) {
    const now = clock.now()
    await recordOutcome(
      db,
      { notificationId: n.notification_id, workerId, attempts: n.attempts },
      {
        status: 'pending',
        lastError,
        sentAt: null,
        now,
        retryAt: new Date(
          now.getTime() +
            backoffDelay(n.attempts, deps.random(), { baseMs: deps.retryBaseMs, maxMs: MAX_RETRY_DELAY_MS }),
        ),
        ...(opts.clearSendMarker ? { clearSendMarker: true } : {}),
      },
    )
  }

  return { settle, collectedBy, retryLater }
}
