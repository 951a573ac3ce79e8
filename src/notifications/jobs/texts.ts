import type { Db } from '../../platform/db/database.js'
import type { Clock } from '../../platform/kit/clock.js'
import type { IdGenerator } from '../../platform/kit/ids.js'
import type { PackageView } from '../model/compose.js'
import { DEFAULT_CHOICES, normalizePhone, quietUntil, resolveChannels } from '../model/channels.js'
import type { Place } from '../model/place.js'
import { composeText } from '../model/text.js'
import { recordOutcome, renewLease } from '../store/claim.js'
import {
  findRecipientChannels,
  findSmsSettings,
  findStop,
  findTextOf,
  insertTextOf,
  recordProviderId,
  type SmsSettingsRow,
} from '../store/sms.js'
import type { NotificationRow } from '../store/tables.js'
import { SmsRefused, UnconfirmedText } from '../delivery/sms.js'
import type { SmsProviders } from './providers.js'
import type { CollectedBy, createOutcomes } from './outcome.js'
import type { RecipientContact, WorkerStep } from './worker.js'

const errorText = (e: unknown) => (e instanceof Error ? e.message : String(e)).slice(0, 500)

/** What the worker read of a claimed notification before it chose the channel. */
export interface TextContext {
  enabled: boolean
  packages: PackageView[]
  contact: RecipientContact | undefined
  collector: CollectedBy | undefined
  placesOf(siteIds: readonly string[]): Promise<ReadonlyMap<string, Place>>
}

/**
 * The texts' side of the worker (issue 29): which channels a claimed notification goes by, and the
 * sending of a text, with the email's guarantees: the same claim and lease (renewed just before the
 * send, only while the claim is still ours), the same back-off and outcome record, published as the
 * same package events with `channel: 'sms'`.
 */
export function createTexts(deps: {
  db: Db
  clock: Clock
  ids: IdGenerator
  workerId: string
  leaseMs: number
  maxAttempts: number
  timeZone: string
  /** SMS_DEFAULT_COUNTRY: the country of a contact's phone number written without one. */
  defaultCountry: string
  providers: SmsProviders
  outcomes: ReturnType<typeof createOutcomes>
}) {
  const { db, clock, workerId } = deps
  const { settle, retryLater } = deps.outcomes

  /** Why this text is not sent, or undefined (the recipient's standing is read now, not when it was queued). */
  async function standing(n: NotificationRow, contact: RecipientContact | undefined, settingsRead?: SmsSettingsRow) {
    const phone = normalizePhone(contact?.phone, deps.defaultCountry)
    const [settings, pref, stop] = await Promise.all([
      settingsRead ?? findSmsSettings(db, n.sub_id),
      contact ? findRecipientChannels(db, n.sub_id, contact.contactId) : undefined,
      phone ? findStop(db, n.sub_id, phone) : undefined,
    ])
    return {
      settings,
      pref,
      phone,
      optedIn: pref?.sms_opt_in_at != null,
      stopped: stop?.stopped === true,
      provider: settings !== undefined && settings.provider !== 'none',
    }
  }

  return {
    /**
     * A notification (not a text already): 'sms' when it goes as a text only (it becomes its text),
     * else 'email'; when the recipient has both, its text is queued beside it now, once. 'texted':
     * texts only, but its text was queued beside it on an earlier attempt (the recipient chose both
     * then): that text carries the news, and the email is not sent (nor ever becomes a second text).
     */
    async route(n: NotificationRow, contact: RecipientContact | undefined): Promise<'email' | 'sms' | 'texted'> {
      if (n.parent_id !== null || !contact) return 'email'
      // A facility without texts (most): one read, nothing of the recipient's.
      const settings = await findSmsSettings(db, n.sub_id)
      if (!settings || settings.provider === 'none' || !settings.channels.allowed.includes('sms')) return 'email'
      const s = await standing(n, contact, settings)
      const channels = resolveChannels(n.kind, s.settings?.channels ?? DEFAULT_CHOICES, s.pref?.kinds, s)
      if (!channels.includes('sms')) return 'email'
      if (!channels.includes('email')) {
        const text = await findTextOf(db, n.sub_id, n.notification_id)
        if (!text) return 'sms'
        // Its text stopped (a STOP, a refusal): the news still goes, by email (docs/sms.md).
        return text.status === 'suppressed' || text.status === 'failed' ? 'email' : 'texted'
      }
      await insertTextOf(db, n, { notification_id: deps.ids('ntf_'), to: s.phone!, now: clock.now() })
      return 'email'
    },

    async send(n: NotificationRow, step: WorkerStep, ctx: TextContext): Promise<void> {
      const { packages, contact, collector } = ctx
      if (n.send_started_at) {
        // A worker handed this text to the provider and its answer was never recorded (the worker
        // stopped, or the database failed after the send): the provider may well have it, and a
        // Messages API takes no idempotency key, so it is never sent again. Its provider id recorded
        // means the provider took it: sent (a resend clears the earlier send's id, store/notifications.ts).
        const status = n.provider_message_id ? 'sent' : 'unconfirmed'
        const why = `the text was handed to the provider at ${n.send_started_at.toISOString()} and its answer was not recorded; not sent again`
        if (await settle(n, status, packages, contact, why, collector, { to: n.to_address })) step.sent++
        return
      }
      const s = await standing(n, contact)
      const to = s.phone ?? n.to_address
      const why = !ctx.enabled
        ? 'notifications are disabled for the subscription'
        : packages.length === 0
          ? 'nothing left to tell: every package was collected or is gone'
          : !contact
            ? 'the contact no longer exists'
            : !s.phone
              ? 'the contact has no usable phone number'
              : !s.optedIn
                ? 'the contact has not opted in to texts'
                : s.stopped
                  ? 'the number replied STOP'
                  : undefined
      const resolved = why === undefined ? await deps.providers.forSub(n.sub_id) : undefined
      const reason = why ?? (resolved ? undefined : 'no SMS provider is configured for the facility')
      if (reason !== undefined) {
        if (await settle(n, 'suppressed', packages, contact, reason, collector, { to })) step.suppressed++
        return
      }
      const places = await ctx.placesOf(
        packages.flatMap((p) => (p.currentLocation ? [p.currentLocation.inboundSiteId] : [])),
      )
      const place = packages.map((p) => p.currentLocation && places.get(p.currentLocation.inboundSiteId)).find(Boolean)
      // Quiet hours are the parcels' site's (its own or an ancestor's), else the facility's, read in
      // the site's time zone: a text due in them waits until they end (a receipt too: the recipient
      // is not at the desk at night), spending no attempt: an arrival's batch stays open, and what
      // arrives meanwhile joins it.
      const facility =
        s.settings?.quiet_start && s.settings.quiet_end
          ? { start: s.settings.quiet_start, end: s.settings.quiet_end }
          : undefined
      const quiet = place?.quietHours ?? facility
      const until = quiet
        ? quietUntil(clock.now(), place?.timeZone ?? deps.timeZone, quiet.start, quiet.end)
        : undefined
      if (until) {
        await recordOutcome(
          db,
          { notificationId: n.notification_id, workerId, attempts: n.attempts },
          {
            status: 'pending',
            lastError: `quiet hours: due at ${until.toISOString()}`,
            sentAt: null,
            now: clock.now(),
            retryAt: until,
            to,
            channel: 'sms',
            refundAttempt: true,
          },
        )
        step.retrying++
        return
      }
      const body = composeText({
        kind: n.kind,
        packages,
        recipientName: contact!.name,
        ...(place ? { where: place.where } : {}),
        ...(collector ? { collector: collector.name } : {}),
      })
      const handedAt = clock.now()
      const ours = await renewLease(
        db,
        { notificationId: n.notification_id, workerId, attempts: n.attempts },
        // The send marker goes with the lease, committed before the request (see above).
        { now: handedAt, leaseMs: deps.leaseMs, to, channel: 'sms', markSend: true },
      )
      if (!ours) {
        step.skipped++
        return
      }
      let messageId: string
      try {
        ;({ messageId } = await resolved!.provider.send(resolved!.from, {
          to,
          body,
          ...(resolved!.statusCallback ? { statusCallback: resolved!.statusCallback } : {}),
        }))
      } catch (e) {
        if (e instanceof UnconfirmedText) {
          // Asked and never answered: it may have gone, so it is not sent again, and it is said to
          // be unconfirmed (as when the worker is killed mid-send), not sent on no one's word.
          const marked = { ...n, send_started_at: handedAt }
          if (await settle(marked, 'unconfirmed', packages, contact, errorText(e), collector, { to })) step.sent++
        } else if (e instanceof SmsRefused || n.attempts >= deps.maxAttempts) {
          if (await settle(n, 'failed', packages, contact, errorText(e), collector, { to })) step.failed++
        } else {
          // Refused or failed by the provider for certain (throttled, a 5xx, no session): sent afresh
          // next time. Any other way back to pending keeps the marker (recordOutcome).
          await retryLater(n, errorText(e), { clearSendMarker: true })
          step.retrying++
        }
        return
      }
      // Taken by the provider: from here it is recorded sent, never sent again (if the database stays
      // out of reach, the lease runs out: at least once, as for email). The provider's id first, on
      // its own: a receipt may come back before the outcome's transaction.
      const recordSent = async () => {
        await recordProviderId(db, n.notification_id, messageId)
        if (await settle(n, 'sent', packages, contact, null, collector, { to })) step.sent++
      }
      await recordSent().catch(() => recordSent().catch(() => undefined))
    },
  }
}
