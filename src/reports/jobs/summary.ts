import type { Db } from '../../platform/db/database.js'
import { inTransaction } from '../../platform/db/transaction.js'
import { tryJobLock } from '../../platform/jobs/lock.js'
import type { PeriodicTask } from '../../platform/jobs/scheduler.js'
import type { Clock } from '../../platform/kit/clock.js'
import type { Report, ReportQuery } from '../api/schemas.js'
import { composeSummary, summaryDue } from '../model/summary.js'
import { allOptins, claimSend, recordSend, settledSends } from '../store/summaries.js'

/** What the summary sends through: the notifications domain's SMTP mailer (SMTP_URL). */
export interface SummaryMailer {
  send(m: {
    to: string
    subject: string
    text: string
    html: string
    messageId: string
    headers: Record<string, string>
    attachments: []
  }): Promise<void>
  close(): void
}

export interface SummaryOptions {
  /** REPORT_SUMMARY_HOUR: the local hour from which yesterday's summary goes. */
  hour: number
  /** REPORT_SUMMARY_TIME_ZONE: the zone of that hour and of "yesterday". */
  timeZone: string
  /** REPORT_SUMMARY_UNCLAIMED_DAYS: waiting this many days or more counts as unclaimed. */
  unclaimedDays: number
  publicUrl: string
  /** A claim lapses after this (a worker died mid-send): the one in flight is sent again. */
  leaseMs: number
}

export interface SummaryDeps {
  db: Db
  clock: Clock
  options: SummaryOptions
  report(subId: string, q: ReportQuery): Promise<Report>
  /** The active admins of a subscription, by user id. */
  admins(subId: string): Promise<Map<string, { email: string }>>
  /** A mailer for one run (closed after it); undefined: no SMTP server configured. */
  mailer(): SummaryMailer | undefined
  /** The mailer's "handed over, not answered" error: never sent again. */
  isUnconfirmed(err: unknown): boolean
  log(msg: string, extra: Record<string, unknown>): void
}

/** Attempts of one admin's summary of one day (the server refused it) before it is given up. */
const MAX_ATTEMPTS = 5
/** The oldest waiting a summary reads, to count the unclaimed. */
const OLDEST_READ = 100

/**
 * The daily summary email (issue 30.4): once the local hour has come, each admin who opted in gets
 * yesterday's summary, exactly once. Each send is claimed first, in its own committed transaction
 * under the job lock (platform/jobs/lock.ts), on the (subscription, admin, day) key: a second worker
 * finds it claimed, a run after a crash finds the sent ones settled and resends at most the one that
 * was in flight (its claim lapses after `leaseMs`).
 */
export function createSummaryJob(deps: SummaryDeps) {
  const { db, clock, options } = deps

  async function runOnce(): Promise<{ sent: number }> {
    const due = summaryDue(clock.now(), options.timeZone, options.hour)
    if (!due) return { sent: 0 }
    const settled = await settledSends(db, due.day)
    const todo = (await allOptins(db)).filter((o) => !settled.has(`${o.subId}\u0000${o.userId}`))
    const admins = new Map<string, Map<string, { email: string }>>()
    let mailer: SummaryMailer | undefined
    let sent = 0
    try {
      for (const o of todo) {
        if (!admins.has(o.subId)) admins.set(o.subId, await deps.admins(o.subId))
        // No longer an active admin: no summary, and no claim (it would be sent if made admin again today).
        const admin = admins.get(o.subId)!.get(o.userId)
        if (!admin) continue
        const key = { ...o, day: due.day }
        const now = clock.now()
        const claimed = await inTransaction(
          db,
          async (trx) =>
            (await tryJobLock(trx, 'report summary')) &&
            claimSend(trx, key, now, new Date(now.getTime() + options.leaseMs), MAX_ATTEMPTS),
        )
        if (!claimed) continue
        const report = await deps.report(o.subId, { from: due.day, to: due.day, oldest: OLDEST_READ })
        const link = `${options.publicUrl}/console/reports`
        const mail = composeSummary({
          day: due.day,
          report,
          oldestRead: OLDEST_READ,
          unclaimedDays: options.unclaimedDays,
          link,
        })
        mailer ??= deps.mailer()
        if (!mailer) {
          await recordSend(db, key, { status: 'failed', error: 'no SMTP server is configured (SMTP_URL)' }, now)
          continue
        }
        try {
          const host = new URL(options.publicUrl).hostname || 'mailroom'
          await mailer.send({
            to: admin.email,
            ...mail,
            // The same id on a resend after a crash: a mail client can tell it is the same message.
            messageId: `<summary.${o.subId}.${o.userId}.${due.day}@${host}>`,
            headers: {},
            attachments: [],
          })
          await recordSend(db, key, { status: 'sent' }, clock.now())
          sent++
        } catch (err) {
          const error = err instanceof Error ? err.message : String(err)
          if (deps.isUnconfirmed(err)) await recordSend(db, key, { status: 'unconfirmed' }, clock.now())
          else await recordSend(db, key, { status: 'retry', error }, clock.now(), MAX_ATTEMPTS)
          deps.log('report summary not sent', { subId: o.subId, userId: o.userId, day: due.day, error })
        }
      }
    } finally {
      mailer?.close()
    }
    return { sent }
  }

  return {
    runOnce,
    /** For the one scheduler: every 5 minutes, so a summary goes within minutes of its hour. */
    periodicTask: { name: 'report summary', everyMs: 5 * 60_000, run: () => runOnce() } satisfies PeriodicTask,
  }
}
export type SummaryJob = ReturnType<typeof createSummaryJob>
