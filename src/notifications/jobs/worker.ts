import type { Db } from '../../platform/db/database.js'
import { inTransaction } from '../../platform/db/transaction.js'
import type { Clock } from '../../platform/kit/clock.js'
import type { IdGenerator } from '../../platform/kit/ids.js'
import { enqueueUnsequenced } from '../../events/outbox.js'
import { gatherArrivals } from '../model/arrivals.js'
import { composeEmail, type PackageView } from '../model/compose.js'
import { isOneOf, NOT_WAITING } from '../../packages/index.js'
import { webhookEventOf, type NotificationStatus } from '../model/kinds.js'
import type { Mailer } from '../delivery/mailer.js'
import { claimDue, recordOutcome, renewLease } from '../store/claim.js'
import { collectorsOf, openingHoursAt, packageIdsOf, type Collector } from '../store/notifications.js'
import type { NotificationRow } from '../store/tables.js'
import { effectiveSettings } from '../model/settings.js'
import { findSettings } from '../store/settings.js'

export interface RecipientContact {
  contactId: string
  name: string
  email?: string
  phone?: string
  notify: boolean
  /** The language of its emails; absent: the subscription's. */
  language?: string
}

/** Who collected the parcels of a PICKED_UP receipt (in its webhook events as `notification.collectedBy`). */
export interface CollectedBy {
  name: string
  contactId?: string
  /** The recipient, when someone else collected on their behalf. */
  onBehalfOf?: { contactId: string; name?: string }
}

export interface WorkerLog {
  info(obj: Record<string, unknown>, msg: string): void
  error(obj: Record<string, unknown>, msg: string): void
}

export interface NotificationWorkerDeps {
  db: Db
  clock: Clock
  ids: IdGenerator
  workerId: string
  /** Absent: no SMTP configured, every notification is recorded as suppressed. */
  mailer: Mailer | undefined
  records(subId: string, packageIds: string[]): Promise<PackageView[]>
  contact(subId: string, contactId: string): Promise<RecipientContact | undefined>
  unsubscribeUrl(subId: string, contactId: string): string
  messageIdDomain: string
  retryBaseMs: number
  maxAttempts: number
  leaseMs: number
  batchSize: number
  concurrency: number
  pollMs: number
  random: () => number
  log: WorkerLog
  /** The reminder job (notifications/jobs/reminders.ts), run every `remindersEveryMs` by the loop. */
  reminders: { run(): Promise<number> }
  remindersEveryMs: number
  /** Webhook events were committed: the webhook worker looks now. */
  onEventsCommitted?: () => void
}

export interface WorkerStep {
  sent: number
  /** Claimed, but taken by another worker (or settled) before its turn came: not sent. */
  skipped: number
  suppressed: number
  failed: number
  retrying: number
  reminders: number
}

/** Retry delay ceilings double per failed attempt (full jitter), at most six hours. */
export function retryDelayMs(attempts: number, baseMs: number, random: () => number): number {
  const ceiling = Math.min(6 * 3600_000, baseMs * 2 ** Math.max(0, attempts - 1))
  return Math.max(1000, Math.round(ceiling * (0.5 + random() / 2)))
}

const errorText = (e: unknown) => (e instanceof Error ? e.message : String(e)).slice(0, 500)

/**
 * Sends due notifications: claim (SKIP LOCKED, a lease), decide, send, record. Deciding happens
 * now, not when the row was written: the contact may have unsubscribed, the parcel been
 * collected, SMTP been configured since. Every settled notification (sent, suppressed, failed) is
 * also published as a webhook event per package, in the transaction that records it.
 */
export function createNotificationWorker(deps: NotificationWorkerDeps) {
  const { db, clock, ids, workerId, mailer, log } = deps
  let nextRemindersAt = 0
  let wake: (() => void) | undefined
  let nudged = false

  async function settle(
    n: NotificationRow,
    status: Exclude<NotificationStatus, 'pending'>,
    packages: PackageView[],
    contact: RecipientContact | undefined,
    lastError: string | null,
    collector?: CollectedBy,
  ): Promise<boolean> {
    const now = clock.now()
    // The address mailed, or that would have been: the contact's at this moment, not the row's.
    const to = contact?.email ?? n.to_address
    const held = await inTransaction(db, async (trx) => {
      const ok = await recordOutcome(
        trx,
        { notificationId: n.notification_id, workerId, attempts: n.attempts },
        { status, lastError, sentAt: status === 'sent' ? now : null, now, to },
      )
      if (!ok) return false
      const notification = {
        notificationId: n.notification_id,
        kind: n.kind,
        channel: n.channel,
        status,
        step: n.step || undefined,
        to: to || undefined,
        packageIds: packages.map((p) => p.packageId),
        contact: contact
          ? { contactId: contact.contactId, name: contact.name, email: contact.email, phone: contact.phone }
          : { contactId: n.contact_id },
        ...(collector ? { collectedBy: collector } : {}),
      }
      await enqueueUnsequenced(
        trx,
        packages.map((p) => ({
          eventId: ids('evt_'),
          subId: n.sub_id,
          packageId: p.packageId,
          variant: 'tracking' as const,
          eventName: webhookEventOf(n.kind),
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
    const pickups = await collectorsOf(
      db,
      n.sub_id,
      packages.map((p) => p.packageId),
    )
    const picked: Collector | undefined = packages.map((p) => pickups.get(p.packageId)).find(Boolean)
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

  async function retryLater(n: NotificationRow, lastError: string): Promise<void> {
    const now = clock.now()
    await recordOutcome(
      db,
      { notificationId: n.notification_id, workerId, attempts: n.attempts },
      {
        status: 'pending',
        lastError,
        sentAt: null,
        now,
        retryAt: new Date(now.getTime() + retryDelayMs(n.attempts, deps.retryBaseMs, deps.random)),
      },
    )
  }

  /** Why this notification is not sent, or undefined: it goes. */
  function suppression(
    enabled: boolean,
    packages: PackageView[],
    contact: RecipientContact | undefined,
  ): string | undefined {
    if (!enabled) return 'notifications are disabled for the subscription'
    if (packages.length === 0) return 'nothing left to tell: every package was collected or is gone'
    if (!contact) return 'the contact no longer exists'
    if (!contact.notify) return 'the contact unsubscribed'
    if (!contact.email) return 'the contact has no email address'
    if (!mailer) return 'no SMTP server is configured (SMTP_URL)'
    return undefined
  }

  /** What one pass reads once for all its claims: each subscription's settings, each notification's packages. */
  interface PassReads {
    settings: Map<string, Promise<ReturnType<typeof effectiveSettings>>>
    packageIds: Map<string, string[]>
  }

  async function handle(n: NotificationRow, step: WorkerStep, reads: PassReads): Promise<void> {
    try {
      let settingsRead = reads.settings.get(n.sub_id)
      if (!settingsRead) {
        settingsRead = findSettings(db, n.sub_id).then(effectiveSettings)
        reads.settings.set(n.sub_id, settingsRead)
      }
      const settings = await settingsRead
      const packageIds = reads.packageIds.get(n.notification_id) ?? []
      let packages = await deps.records(n.sub_id, packageIds)
      // An arrival or a reminder is about what still waits: a parcel collected (or returned) since the
      // row was written is left out, and with nothing left the email is not sent (suppressed).
      if (n.kind !== 'PICKED_UP') packages = packages.filter((p) => !isOneOf(NOT_WAITING, p.currentStatus))
      const contact = await deps.contact(n.sub_id, n.contact_id)
      const collector = await collectedBy(n, packages, contact)
      const why = suppression(settings.enabled, packages, contact)
      if (why !== undefined) {
        if (await settle(n, 'suppressed', packages, contact, why, collector)) step.suppressed++
        return
      }
      const siteId = packages.find((p) => p.currentLocation)?.currentLocation?.inboundSiteId
      const openingHours = n.kind !== 'PICKED_UP' && siteId ? await openingHoursAt(db, n.sub_id, siteId) : undefined
      const message = await composeEmail({
        notificationId: n.notification_id,
        kind: n.kind,
        step: n.step,
        to: contact!.email!,
        recipientName: contact!.name,
        packages,
        settings,
        unsubscribeUrl: deps.unsubscribeUrl(n.sub_id, n.contact_id),
        messageIdDomain: deps.messageIdDomain,
        now: clock.now(),
        ...(collector ? { collector: { name: collector.name, onBehalf: collector.onBehalfOf !== undefined } } : {}),
        ...(openingHours ? { openingHours } : {}),
        ...(contact!.language ? { language: contact!.language } : {}),
      })
      // The claim covered the whole batch; this row may have waited in line past its lease.
      const ours = await renewLease(
        db,
        { notificationId: n.notification_id, workerId, attempts: n.attempts },
        { now: clock.now(), leaseMs: deps.leaseMs, to: contact!.email! },
      )
      if (!ours) {
        step.skipped++
        return
      }
      try {
        await mailer!.send(message)
      } catch (e) {
        if (n.attempts >= deps.maxAttempts) {
          if (await settle(n, 'failed', packages, contact, errorText(e), collector)) step.failed++
        } else {
          await retryLater(n, errorText(e))
          step.retrying++
        }
        return
      }
      if (await settle(n, 'sent', packages, contact, null, collector)) step.sent++
    } catch (e) {
      // A database or rendering failure before the send: retried with back-off like a refused send,
      // failed after the last attempt (if even this cannot be recorded, the lease runs out instead).
      log.error({ err: e, notificationId: n.notification_id }, 'notification failed before its outcome was recorded')
      try {
        if (n.attempts >= deps.maxAttempts) {
          if (await settle(n, 'failed', [], undefined, errorText(e))) step.failed++
        } else await retryLater(n, errorText(e))
      } catch {
        // the lease runs out
      }
    }
  }

  async function sendDue(step: WorkerStep): Promise<number> {
    // The queued arrivals into their batches (arrivals.ts), then claim. A gathering that fails (a
    // statement timeout on a backlog) must not stop the receipts, retries and reminders already due.
    try {
      await gatherArrivals({ db, clock, ids })
    } catch (e) {
      log.error({ err: e }, 'gathering queued arrivals failed; claiming what is due all the same')
    }
    const claimed = await claimDue(db, {
      now: clock.now(),
      limit: deps.batchSize,
      workerId,
      leaseMs: deps.leaseMs,
    })
    if (claimed.length === 0) return 0
    const reads: PassReads = {
      settings: new Map(),
      packageIds: await packageIdsOf(
        db,
        claimed.map((n) => n.notification_id),
      ),
    }
    let next = 0
    await Promise.all(
      Array.from({ length: Math.min(deps.concurrency, claimed.length) }, async () => {
        while (next < claimed.length) await handle(claimed[next++]!, step, reads)
      }),
    )
    return claimed.length
  }

  async function maybeReminders(step: WorkerStep, force: boolean): Promise<void> {
    const now = clock.now().getTime()
    if (!force && now < nextRemindersAt) return
    nextRemindersAt = now + deps.remindersEveryMs
    step.reminders += await deps.reminders.run()
  }

  const emptyStep = (): WorkerStep => ({ sent: 0, skipped: 0, suppressed: 0, failed: 0, retrying: 0, reminders: 0 })

  return {
    /** One deterministic pass at the clock's now: the reminder job, then every due notification. */
    async runOnce(): Promise<WorkerStep> {
      const step = emptyStep()
      await maybeReminders(step, true)
      while ((await sendDue(step)) === deps.batchSize);
      return step
    },

    /** Something was just written: look now rather than at the next poll. */
    nudge(): void {
      nudged = true
      wake?.()
    },

    /** The loop; the returned stop lets in-flight sends finish and record (the mailer stays open: close it apart). */
    start(): () => Promise<void> {
      let stopping = false
      const loop = (async () => {
        while (!stopping) {
          const step = emptyStep()
          let claimed = 0
          try {
            await maybeReminders(step, false)
            claimed = await sendDue(step)
          } catch (e) {
            log.error({ err: e }, 'notification worker pass failed')
          }
          if (claimed === deps.batchSize || stopping) continue
          if (nudged) {
            nudged = false
            continue
          }
          await new Promise<void>((resolve) => {
            const t = setTimeout(resolve, deps.pollMs)
            wake = () => {
              clearTimeout(t)
              resolve()
            }
          })
          wake = undefined
        }
      })()
      return async () => {
        stopping = true
        wake?.()
        await loop
      }
    },
  }
}
