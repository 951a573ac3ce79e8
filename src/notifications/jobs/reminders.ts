import type { Db } from '../../platform/db/database.js'
import { inTransaction } from '../../platform/db/transaction.js'
import type { Clock } from '../../platform/kit/clock.js'
import type { IdGenerator } from '../../platform/kit/ids.js'
import { insertNotifications, linkPackages } from '../store/notifications.js'
import { dueReminders, tryJobLock } from '../store/reminders.js'
import { settingsWithReminders } from '../store/settings.js'
import { reminderSchedule } from '../model/reminder-schedule.js'
import { effectiveSettings } from '../model/settings.js'
import { lastRestore, NOT_DUE, recordHeld } from '../../platform/jobs/held-work.js'

const BATCH = 500

/**
 * The reminder job. Durable: it keeps no state of its own and derives what is due from the
 * database, so a reminder missed while no worker ran is sent at the next run (only the latest
 * step that is due: after a long outage the recipient gets one reminder, not every step at once).
 * Reminders follow the arrival email they remind of: each step is due its hours after that email
 * was sent, and reminds of its parcels still waiting (none left: no reminder).
 * Safe across processes: a transaction-scoped advisory lock per run, and unique indexes on
 * (arrival email, kind, step) and (package, kind, step) behind it, so nothing is reminded twice of one step.
 */
export function createReminderJob(deps: { db: Db; clock: Clock; ids: IdGenerator }) {
  const { db, clock, ids } = deps

  /** One step of one subscription: one notification per arrival email due, about its parcels still waiting. */
  async function runStep(
    subId: string,
    kind: 'REMINDER' | 'FINAL_NOTICE',
    step: number,
    afterHours: number,
    perishableOnly = false,
  ): Promise<number> {
    let written = 0
    let heldBatch = false
    for (;;) {
      const n = await inTransaction(db, async (trx) => {
        heldBatch = false
        if (!(await tryJobLock(trx, 'reminders'))) return -1
        const now = clock.now()
        // A step that became due before this database was restored was sent by the original: the
        // restored copy writes it held, for the operator's decision (docs/backup.md), before the rest.
        const restore = await lastRestore(trx)
        const before =
          restore && new Date(Math.min(now.getTime(), restore.restoredAt.getTime()) - afterHours * 3600_000)
        let due = before
          ? await dueReminders(trx, { subId, kind, step, cutoff: before, limit: BATCH, perishableOnly, now })
          : []
        const held = (heldBatch = due.length > 0)
        if (!held)
          due = await dueReminders(trx, {
            subId,
            kind,
            step,
            cutoff: new Date(now.getTime() - afterHours * 3600_000),
            limit: BATCH,
            perishableOnly,
            now,
          })
        // One reminder per arrival email, to the address it went to, about its parcels still waiting.
        const idOf = new Map(due.map((d) => [d.arrival_id, ids('ntf_')]))
        await insertNotifications(
          trx,
          due.map((d) => ({
            notification_id: idOf.get(d.arrival_id)!,
            sub_id: subId,
            kind,
            contact_id: d.contact_id,
            to_address: d.to_address,
            step,
            status: 'pending' as const,
            next_attempt_at: held ? NOT_DUE : now,
            created_at: now,
            reminds_id: d.arrival_id,
          })),
        )
        if (held)
          await recordHeld(
            trx,
            { itemType: 'notification', kind: 'email', restoreId: restore!.restoreId, since: now },
            [...idOf.values()],
          )
        await linkPackages(
          trx,
          due.flatMap((d) =>
            d.package_ids.map((packageId) => ({
              notification_id: idOf.get(d.arrival_id)!,
              package_id: packageId,
              sub_id: subId,
              kind,
              step,
              created_at: now,
            })),
          ),
        )
        return due.length
      })
      if (n < 0) return written
      written += n
      if (n < BATCH && !heldBatch) return written
    }
  }

  return {
    /** Every subscription's due reminders and final notices; returns how many packages were reminded of. */
    async run(): Promise<number> {
      let written = 0
      for (const s of await settingsWithReminders(db)) {
        // The final notice first, then the steps from the last: a package owed several gets the latest only.
        for (const pass of reminderSchedule(effectiveSettings(s)))
          written += await runStep(s.sub_id, pass.kind, pass.step, pass.afterHours, pass.perishableOnly)
      }
      return written
    },
  }
}
