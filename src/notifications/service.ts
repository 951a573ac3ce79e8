import type { Db } from '../platform/db/database.js'
import type { Clock } from '../platform/kit/clock.js'
import { AppError } from '../platform/kit/errors.js'
import { NOTIFICATION_ERRORS } from './model/errors.js'
import * as repo from './store/notifications.js'
import type { ListNotificationsQuery, Notification, NotificationSettings } from './api/schemas.js'
import type { NotificationRow } from './store/tables.js'
import { checkSettings, effectiveSettings } from './model/settings.js'
import { findSettings, upsertSettings } from './store/settings.js'
import { readUnsubscribeToken } from './model/unsubscribe.js'

export interface NotificationsServiceDeps {
  db: Db
  clock: Clock
  unsubscribeKey: Buffer
  /** The contacts domain's switch (contacts.setNotify); false: no such contact. */
  setNotify(subId: string, contactId: string, notify: boolean): Promise<boolean>
  /** A resend was queued: the worker looks now. */
  nudge(): void
}

function toNotification(r: NotificationRow, packageIds: string[]): Notification {
  const out: Notification = {
    notificationId: r.notification_id,
    kind: r.kind,
    channel: r.channel,
    to: r.to_address,
    contactId: r.contact_id,
    status: r.status,
    attempts: r.attempts,
    createdAt: r.created_at.toISOString(),
    packageIds,
  }
  if (r.step > 0) out.step = r.step
  if (r.last_error !== null) out.lastError = r.last_error
  if (r.sent_at !== null) out.sentAt = r.sent_at.toISOString()
  if (r.parent_id !== null) out.parentId = r.parent_id
  if (r.delivery_status !== null) out.deliveryStatus = r.delivery_status
  if (r.delivered_at !== null) out.deliveredAt = r.delivered_at.toISOString()
  return out
}

export type NotificationsService = ReturnType<typeof createNotificationsService>

export function createNotificationsService(deps: NotificationsServiceDeps) {
  const { db, clock } = deps
  return {
    async getSettings(subId: string): Promise<NotificationSettings> {
      return effectiveSettings(await findSettings(db, subId))
    },

    async putSettings(subId: string, input: NotificationSettings): Promise<NotificationSettings> {
      checkSettings(input)
      await upsertSettings(db, {
        sub_id: subId,
        enabled: input.enabled,
        arrival_batch_seconds: input.arrivalBatchSeconds,
        reminder_after_hours: input.reminderAfterHours,
        final_notice_after_hours: input.finalNoticeAfterHours,
        perishable_reminder_after_hours: input.perishableReminderAfterHours ?? null,
        language: input.language ?? 'en',
        templates: input.templates,
        updated_at: clock.now(),
      })
      return {
        ...input,
        perishableReminderAfterHours: input.perishableReminderAfterHours ?? null,
        language: input.language ?? 'en',
      }
    },

    async list(subId: string, q: ListNotificationsQuery): Promise<{ notifications: Notification[] }> {
      const rows = await repo.listNotifications(db, { subId, ...q })
      const packages = await repo.packageIdsOf(
        db,
        rows.map((r) => r.notification_id),
        repo.parentsOf(rows),
      )
      return { notifications: rows.map((r) => toNotification(r, packages.get(r.notification_id) ?? [])) }
    },

    /**
     * Sends it again (any status but being sent), as it is now, with a fresh attempt budget; it keeps its
     * Message-ID, so the recipient's client can tell.
     */
    async resend(subId: string, notificationId: string): Promise<Notification> {
      const row = await repo.findNotification(db, subId, notificationId)
      if (!row) throw new AppError(NOTIFICATION_ERRORS.NOTIFICATION_NOT_FOUND, { detail: { notificationId } })
      if (!(await repo.requeue(db, subId, notificationId, clock.now())))
        throw new AppError(NOTIFICATION_ERRORS.NOTIFICATION_SENDING, { detail: { notificationId } })
      deps.nudge()
      const again = (await repo.findNotification(db, subId, notificationId))!
      const packages = await repo.packageIdsOf(db, [notificationId], repo.parentsOf([again]))
      return toNotification(again, packages.get(notificationId) ?? [])
    },

    /** The contact a link stands for, or a 400: the confirmation page shows nothing for a bad link. */
    checkUnsubscribeLink(token: string): { subId: string; contactId: string } {
      const who = readUnsubscribeToken(deps.unsubscribeKey, token)
      if (!who) throw new AppError(NOTIFICATION_ERRORS.UNSUBSCRIBE_LINK_INVALID, { field: 't' })
      return who
    },

    /** RFC 8058 one-click: the contact gets no more emails. Idempotent; a deleted contact is simply done. */
    async unsubscribe(token: string): Promise<void> {
      const who = this.checkUnsubscribeLink(token)
      await deps.setNotify(who.subId, who.contactId, false)
    },
  }
}
