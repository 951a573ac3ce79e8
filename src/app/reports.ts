import type { Logger } from 'pino'
import type { UsersService } from '../access/index.js'
import type { Config } from './config.js'
import { createSmtpMailer, UnconfirmedSend } from '../notifications/index.js'
import type { Db } from '../platform/db/database.js'
import { leaseMs } from '../platform/jobs/lease.js'
import type { Clock } from '../platform/kit/clock.js'
import {
  createReportsService,
  createSummaryJob,
  createSummaryService,
  type ReportsService,
  type SummaryJob,
  type SummaryService,
} from '../reports/index.js'

export type { ReportsService, SummaryJob, SummaryService }

type ReportsDeps = Parameters<typeof createReportsService>[0]

/**
 * The reports (issue 30.4) and their daily summary email: the summary goes to the subscription's
 * active admins who opted in, through the notifications' SMTP mailer.
 */
export function composeReports(deps: {
  db: Db
  clock: Clock
  config: Readonly<Config>
  sites: ReportsDeps['sites']
  carriers: ReportsDeps['carriers']
  packages: ReportsDeps['packages']
  users: Pick<UsersService, 'listUsers'>
  log: Logger
}): { reports: ReportsService; reportSummary: SummaryService; reportSummaryJob: SummaryJob } {
  const { db, clock, config, users, log } = deps
  const reports = createReportsService({
    db,
    clock,
    sites: deps.sites,
    carriers: deps.carriers,
    packages: deps.packages,
  })
  const admins = async (subId: string) =>
    new Map(
      (await users.listUsers(subId))
        .filter((u) => u.role === 'admin' && u.status === 'active')
        .map((u) => [u.userId, { email: u.email }]),
    )
  const reportSummary = createSummaryService({ db, clock, admins, schedule: config.reportSummary })
  const mail = config.notifications
  const reportSummaryJob = createSummaryJob({
    db,
    clock,
    options: { ...config.reportSummary, publicUrl: config.publicUrl, leaseMs: leaseMs(mail.sendTimeoutMs) },
    report: (subId, q) => reports.report(subId, q),
    admins,
    mailer: () =>
      mail.smtpUrl
        ? createSmtpMailer({ url: mail.smtpUrl, from: mail.mailFrom, timeoutMs: mail.sendTimeoutMs, connections: 1 })
        : undefined,
    isUnconfirmed: (err) => err instanceof UnconfirmedSend,
    log: (msg, extra) => log.error(extra, msg),
  })
  return { reports, reportSummary, reportSummaryJob }
}
