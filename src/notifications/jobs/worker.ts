import type { Db } from '../../platform/db/database.js'
import type { Clock } from '../../platform/kit/clock.js'
import type { IdGenerator } from '../../platform/kit/ids.js'
import { consumePackageEvents } from './consume.js'
import { composeEmail, viewOf, type PackageView } from '../model/compose.js'
import { isOneOf, NOT_WAITING, type PackagesService } from '../../packages/index.js'
import { UnconfirmedSend, type Mailer } from '../delivery/mailer.js'
import { claimDue, renewLease } from '../store/claim.js'
import { createJobRunner } from '../../platform/jobs/runner.js'
import type { PeriodicTask } from '../../platform/jobs/scheduler.js'
import { packageIdsOf, parentsOf } from '../store/notifications.js'
import type { NotificationRow } from '../store/tables.js'
import { effectiveSettings } from '../model/settings.js'
import { findSettings } from '../store/settings.js'
import type { Place } from '../model/place.js'
import { createOutcomes } from './outcome.js'
import { createTexts } from './texts.js'
import type { SmsProviders } from './providers.js'

export interface RecipientContact {
  contactId: string
  name: string
  email?: string
  phone?: string
  notify: boolean
  /** The language of its emails; absent: the subscription's. */
  language?: string
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
  /** The packages domain's records: what an email shows is read when it is sent. */
  packages: Pick<PackagesService, 'recordsByIds'>
  /** The places of sites, as emails write them, with their time zones (jobs/places.ts). */
  placesOf(subId: string, siteIds: readonly string[]): Promise<ReadonlyMap<string, Place>>
  /** A site's opening hours, or its nearest ancestor's (the sites domain's). */
  openingHoursAt(subId: string, siteId: string): Promise<string | undefined>
  /** NOTIFY_TIME_ZONE: the zone of times when no parcel has a place. */
  timeZone: string
  /** SMS_DEFAULT_COUNTRY: the country of a phone number written without one. */
  defaultCountry: string
  contact(subId: string, contactId: string): Promise<RecipientContact | undefined>
  unsubscribeUrl(subId: string, contactId: string): string
  messageIdDomain: string
  retryBaseMs: number
  maxAttempts: number
  /** One send's lease (platform/jobs/lease.ts of the send timeout). */
  leaseMs: number
  /** Emails in flight at once, at most (also the most a crash can send twice). */
  concurrency: number
  pollMs: number
  /** Longest sleep of a worker that keeps finding nothing (RunnerOptions.idlePollMs); a nudge cuts it to pollMs. */
  idlePollMs?: number
  random: () => number
  log: WorkerLog
  /** The reminder job (notifications/jobs/reminders.ts), run every `remindersEveryMs` by the loop. */
  reminders: { run(): Promise<number> }
  remindersEveryMs: number
  /** Webhook events were committed: the webhook worker looks now. */
  onEventsCommitted?: () => void
  /** Each facility's SMS provider (jobs/providers.ts): texts go by the same claims (jobs/texts.ts). */
  providers: SmsProviders
}

export interface WorkerStep {
  sent: number
  /** Claimed, but taken by another worker (or settled) before its send: not sent. */
  skipped: number
  suppressed: number
  failed: number
  retrying: number
  reminders: number
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
  // What runOnce counts while it drains; the background loop counts nothing.
  let tally: WorkerStep | undefined

  const outcomes = createOutcomes(deps)
  const { settle, collectedBy, retryLater } = outcomes
  const texts = createTexts({ ...deps, outcomes })

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
    // Set once the SMTP server took the message: from then on the email is recorded sent, never sent again.
    let recordSent: (() => Promise<boolean>) | undefined
    try {
      let settingsRead = reads.settings.get(n.sub_id)
      if (!settingsRead) {
        settingsRead = findSettings(db, n.sub_id).then(effectiveSettings)
        reads.settings.set(n.sub_id, settingsRead)
      }
      const settings = await settingsRead
      const packageIds = reads.packageIds.get(n.notification_id) ?? []
      let packages = (await deps.packages.recordsByIds(n.sub_id, packageIds)).map(viewOf)
      // An arrival or a reminder is about what still waits: a parcel collected (or returned) since the
      // row was written is left out, and with nothing left the email is not sent (suppressed).
      if (n.kind !== 'PICKED_UP') packages = packages.filter((p) => !isOneOf(NOT_WAITING, p.currentStatus))
      const contact = await deps.contact(n.sub_id, n.contact_id)
      const collector = await collectedBy(n, packages, contact)
      const channel = n.channel === 'sms' ? 'sms' : await texts.route(n, contact)
      if (channel === 'sms') {
        const placesOf = (siteIds: readonly string[]) => deps.placesOf(n.sub_id, siteIds)
        return await texts.send(n, step, { enabled: settings.enabled, packages, contact, collector, placesOf })
      }
      const why =
        channel === 'texted'
          ? 'the recipient chose texts only, and the text queued beside this email carries the news'
          : suppression(settings.enabled, packages, contact)
      if (why !== undefined) {
        if (await settle(n, 'suppressed', packages, contact, why, collector)) step.suppressed++
        return
      }
      const siteId = packages.find((p) => p.currentLocation)?.currentLocation?.inboundSiteId
      const places = await deps.placesOf(
        n.sub_id,
        packages.flatMap((p) => (p.currentLocation ? [p.currentLocation.inboundSiteId] : [])),
      )
      const openingHours = n.kind !== 'PICKED_UP' && siteId ? await deps.openingHoursAt(n.sub_id, siteId) : undefined
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
        places,
        timeZone: deps.timeZone,
        ...(contact!.language ? { language: contact!.language } : {}),
      })
      // Fenced: the lease is taken afresh just before the send (rendering and reads took time), and
      // only while the row is still this claim's; another worker's claim means it is not sent here.
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
        recordSent = () => settle(n, 'sent', packages, contact, null, collector)
      } catch (e) {
        if (e instanceof UnconfirmedSend) {
          // The server has the whole message but its answer never came: it may well have delivered
          // it, and sending again would be a duplicate (RFC 5321 §4.5.3.2.6). Recorded as sent, with why.
          if (await settle(n, 'sent', packages, contact, errorText(e), collector)) step.sent++
          return
        }
        if (n.attempts >= deps.maxAttempts) {
          if (await settle(n, 'failed', packages, contact, errorText(e), collector)) step.failed++
        } else {
          await retryLater(n, errorText(e))
          step.retrying++
        }
        return
      }
      if (await recordSent()) step.sent++
    } catch (e) {
      log.error({ err: e, notificationId: n.notification_id }, 'notification failed before its outcome was recorded')
      if (recordSent) {
        // Sent, but recording it failed (a database error): record it as sent once more, never send it
        // again. Only if the database stays out of reach does the lease run out (at-least-once then).
        try {
          if (await recordSent()) step.sent++
        } catch {
          // the lease runs out
        }
        return
      }
      // A database or rendering failure before the send: retried with back-off like a refused send,
      // failed after the last attempt (if even this cannot be recorded, the lease runs out instead).
      try {
        if (n.attempts >= deps.maxAttempts) {
          if (await settle(n, 'failed', [], undefined, errorText(e))) step.failed++
        } else await retryLater(n, errorText(e))
      } catch {
        // the lease runs out
      }
    }
  }

  /** A claimed notification, with what its claim read once for all (settings per subscription, its packages). */
  interface Job {
    n: NotificationRow
    reads: PassReads
  }

  const emptyStep = (): WorkerStep => ({ sent: 0, skipped: 0, suppressed: 0, failed: 0, retrying: 0, reminders: 0 })

  const runner = createJobRunner<Job>(
    {
      // The outbox's new arrivals and pickups into notifications (consume.ts), then claim. A read that
      // fails (a statement timeout on a backlog) must not stop the receipts, retries and reminders already due.
      prepare: async () => {
        try {
          await consumePackageEvents({ db, clock, ids, log })
        } catch (e) {
          log.error({ err: e }, 'consuming package events failed; claiming what is due all the same')
        }
        return 0
      },
      claim: async (limit) => {
        const claimed = await claimDue(db, { now: clock.now(), limit, workerId, leaseMs: deps.leaseMs })
        if (claimed.length === 0) return []
        const reads: PassReads = {
          settings: new Map(),
          packageIds: await packageIdsOf(
            db,
            claimed.map((n) => n.notification_id),
            parentsOf(claimed),
          ),
        }
        return claimed.map((n) => ({ n, reads }))
      },
      run: ({ n, reads }) => handle(n, tally ?? emptyStep(), reads),
    },
    { concurrency: deps.concurrency, pollMs: deps.pollMs, idlePollMs: deps.idlePollMs, log, name: 'notifications' },
  )

  return {
    /** One deterministic pass at the clock's now: the reminder job, then every due notification. */
    async runOnce(): Promise<WorkerStep> {
      const step = emptyStep()
      step.reminders += await deps.reminders.run()
      tally = step
      try {
        await runner.drain()
      } finally {
        tally = undefined
      }
      return step
    },

    /** Something was just written: look now rather than at the next poll. */
    nudge: () => runner.nudge(),

    /** The runner's loop; the returned stop lets in-flight sends finish and record (close the mailer apart). */
    start: () => runner.start(),

    /** The reminder job, for the one scheduler the app starts (app/background.ts). */
    periodicTasks: [
      { name: 'notification reminders', everyMs: deps.remindersEveryMs, run: () => deps.reminders.run() },
    ] satisfies PeriodicTask[],
  }
}
