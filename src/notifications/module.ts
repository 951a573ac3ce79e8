import { randomBytes } from 'node:crypto'
import { processLog } from '../platform/kit/process-log.js'
import { hostname } from 'node:os'
import type { Db } from '../platform/db/database.js'
import type { Clock } from '../platform/kit/clock.js'
import type { IdGenerator } from '../platform/kit/ids.js'
import type { PackagesService } from '../packages/index.js'
import { createSmtpMailer, type Mailer } from './delivery/mailer.js'
import { createNotificationsService, type NotificationsService } from './service.js'
import { createNotificationWorker, type RecipientContact, type WorkerLog, type WorkerStep } from './jobs/worker.js'
import { createReminderJob } from './jobs/reminders.js'
import { createPlaces, type PlaceReaders } from './jobs/places.js'
import { unsubscribeToken } from './model/unsubscribe.js'
import { leaseMs } from '../platform/jobs/lease.js'
import type { PeriodicTask } from '../platform/jobs/scheduler.js'
import './store/tables.js'
import { createGuardedFetch } from '../platform/http/guarded-fetch.js'
import { createAddressPolicy, systemLookup, type Lookup } from '../platform/http/outbound-guard.js'
import { createSmsProviders } from './jobs/providers.js'
import { createSmsService, type SmsService } from './sms-service.js'

export { notificationsRoutes, unsubscribeRoutes } from './api/routes.js'
export { smsRoutes, smsWebhookRoutes } from './api/sms-routes.js'

/** Recipient email notifications' settings (SMTP_URL, MAIL_FROM, NOTIFY_*). */
export interface NotificationsOptions {
  /** Absent: nothing is sent, every notification is recorded as suppressed. */
  smtpUrl: string | undefined
  mailFrom: string
  retryBaseMs: number
  maxAttempts: number
  sendTimeoutMs: number
  /** NOTIFY_TIME_ZONE: the IANA zone of times in emails about a place with no location above it. */
  timeZone: string
  /** SMS_ALLOW_CIDRS: private networks an SMS provider may be in (the address guard of webhooks otherwise). */
  smsAllowCidrs: string[]
  /** SMS_ALLOW_HTTP: a Messages API URL may be plain http://. */
  smsAllowHttp: boolean
  /** SMS_DEFAULT_COUNTRY: the country (ISO 3166 code) of a phone number written without one. */
  smsDefaultCountry: string
}

export interface NotificationsDeps {
  db: Db
  clock: Clock
  ids: IdGenerator
  config: Readonly<{ publicUrl: string; notifications: NotificationsOptions }>
  unsubscribeKey: Buffer
  /** Seals the facilities' SMS provider secrets at rest. */
  smsSecretKey: Buffer
  /** Tests: name resolution other than the system's, for the SMS providers' address guard. */
  lookup?: Lookup
  /** The packages domain, read when an email is composed (the outbox's events only say what to tell). */
  packages: Pick<PackagesService, 'recordsByIds'>
  /** Where parcels wait, as emails say it: the sites' names and types, and their locations' time zones. */
  sites: PlaceReaders['sites']
  locations: PlaceReaders['locations']
  contacts: {
    getByIds(subId: string, ids: string[]): Promise<Map<string, RecipientContact & { deleted: boolean }>>
    setNotify(subId: string, contactId: string, notify: boolean): Promise<boolean>
  }
  /** The outcome events were committed (events/signal.ts: the webhook worker looks at once). */
  onEventsCommitted?: () => void
  /** Tests: a mailer other than SMTP_URL's. */
  mailer?: Mailer
  pollMs?: number
  log?: WorkerLog
}

export interface Notifications {
  service: NotificationsService
  /** Texts: provider and channel settings, recipients' consent, replies and receipts (issue 29). */
  sms: SmsService
  /** Events were committed to the outbox (events/signal.ts): the worker consumes them now. */
  nudge(): void
  /** The sending loop; the returned stop lets in-flight sends finish (then call close). */
  start(): () => Promise<void>
  /** The reminder job, for the app's one scheduler. */
  periodicTasks: readonly PeriodicTask[]
  /** One deterministic pass (reminders, then everything due at the clock's now). */
  runOnce(): Promise<WorkerStep>
  /** Closes the SMTP connection pool and the SMPP sessions, after the worker stopped. */
  close(): void
}

/** Emails in flight per process, and as many SMTP connections: a send never waits for one. */
const CONCURRENCY = 10

export function createNotifications(deps: NotificationsDeps): Notifications {
  const { db, clock, ids, config } = deps
  const settings = config.notifications
  const mailer =
    deps.mailer ??
    (settings.smtpUrl
      ? createSmtpMailer({
          url: settings.smtpUrl,
          from: settings.mailFrom,
          timeoutMs: settings.sendTimeoutMs,
          connections: CONCURRENCY,
        })
      : undefined)
  const unsubscribeBase = `${config.publicUrl}/notifications/unsubscribe?t=`
  const log = deps.log ?? processLog('error')
  const policy = createAddressPolicy(settings.smsAllowCidrs)
  const lookup = deps.lookup ?? systemLookup
  const smsFetch = createGuardedFetch({ policy, lookup, timeoutMs: settings.sendTimeoutMs, maxBytes: 64 * 1024 })
  // The SMPP sessions hand their replies and receipts to the service, made just below.
  let sms: SmsService | undefined
  const providers = createSmsProviders({
    db,
    secretKey: deps.smsSecretKey,
    publicUrl: config.publicUrl,
    fetch: smsFetch,
    policy,
    lookup,
    timeoutMs: settings.sendTimeoutMs,
    onInbound: (subId, m) =>
      m.kind === 'reply'
        ? sms!.inbound(subId, { from: m.from, body: m.body, messageId: m.messageId, identity: m.identity })
        : sms!.receipt(subId, { messageId: m.messageId, status: m.status, ...(m.error ? { error: m.error } : {}) }),
    onError: (err) => log.error({ err }, 'SMPP session error'),
  })
  sms = createSmsService({
    db,
    clock,
    secretKey: deps.smsSecretKey,
    publicUrl: config.publicUrl,
    allowHttp: settings.smsAllowHttp,
    defaultCountry: settings.smsDefaultCountry,
    providers,
    contact: async (subId, contactId) => {
      const c = (await deps.contacts.getByIds(subId, [contactId])).get(contactId)
      return c && !c.deleted ? c : undefined
    },
    log,
  })
  const worker = createNotificationWorker({
    db,
    clock,
    ids,
    workerId: `${hostname()}:${process.pid}:${randomBytes(4).toString('hex')}`,
    mailer,
    packages: deps.packages,
    placesOf: createPlaces({ sites: deps.sites, locations: deps.locations, defaultTimeZone: settings.timeZone }),
    openingHoursAt: (subId, siteId) => deps.sites.openingHoursAt(subId, siteId),
    timeZone: settings.timeZone,
    defaultCountry: settings.smsDefaultCountry,
    contact: async (subId, contactId) => {
      const c = (await deps.contacts.getByIds(subId, [contactId])).get(contactId)
      return c && !c.deleted ? c : undefined
    },
    unsubscribeUrl: (subId, contactId) => unsubscribeBase + unsubscribeToken(deps.unsubscribeKey, subId, contactId),
    messageIdDomain: new URL(config.publicUrl).hostname || 'mailroom',
    retryBaseMs: settings.retryBaseMs,
    maxAttempts: settings.maxAttempts,
    // One send is bounded by the transport's timeouts (connect, greeting, socket): the lease covers
    // it twice and a margin, taken afresh just before the send (renewLease).
    leaseMs: leaseMs(settings.sendTimeoutMs),
    concurrency: CONCURRENCY,
    // A nudge (something was written here) is answered within 250 ms; an idle worker backs off to
    // deps.pollMs (PGlite: every write is in this process and nudges it).
    pollMs: 250,
    idlePollMs: deps.pollMs ?? 250,
    random: Math.random,
    // Errors only when no log is given (scripts, tests); the processes pass theirs (context.ts).
    log,
    providers,
    reminders: createReminderJob({ db, clock, ids }),
    remindersEveryMs: 60_000,
    onEventsCommitted: deps.onEventsCommitted,
  })
  let nudge: () => void = () => {}
  const service = createNotificationsService({
    db,
    clock,
    unsubscribeKey: deps.unsubscribeKey,
    setNotify: (subId, contactId, notify) => deps.contacts.setNotify(subId, contactId, notify),
    nudge: () => nudge(),
  })
  nudge = () => worker.nudge()
  return {
    service,
    sms,
    nudge: () => worker.nudge(),
    start: () => worker.start(),
    // SMPP facilities' sessions kept bound: their replies (STOP) and receipts arrive on them.
    periodicTasks: [
      ...worker.periodicTasks,
      { name: 'SMPP sessions', everyMs: 60_000, run: () => providers.keepBound() },
    ],
    runOnce: () => worker.runOnce(),
    close: () => {
      mailer?.close()
      void providers.close()
      void smsFetch.close()
    },
  }
}
