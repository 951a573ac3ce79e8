import type { WebhooksOptions } from '../../webhooks/index.js'
import { flag, int, section, text } from './define.js'
import type { Env } from './index.js'

/** The webhook delivery worker, its retry schedule, and the locker reminders it sends. */
export const webhooksSettings = section({
  title: 'Webhooks',
  keys: {
    MAILROOM_WEBHOOK_WORKER: flag({
      default: 'true',
      description: 'run the webhook and email delivery worker inside `serve` (it also runs alone: `mailroom worker`)',
    }),
    MAILROOM_WEBHOOK_ALLOW_HTTP: flag({
      default: 'false',
      description: 'accept plain http:// webhook URLs (development, tests)',
    }),
    MAILROOM_WEBHOOK_ALLOW_CIDRS: text({
      default: '',
      pattern: '^([0-9a-fA-F:.]+/\\d{1,3})?(,[0-9a-fA-F:.]+/\\d{1,3})*$',
      description: 'comma-separated CIDRs exempt from the private-address refusal, e.g. 127.0.0.0/8',
    }),
    WEBHOOK_RETENTION_DAYS: int({
      minimum: 1,
      maximum: 3650,
      default: 30,
      description: 'delivery attempts are kept this long',
    }),
    WEBHOOK_WORKER_BATCH: int({
      minimum: 1,
      maximum: 1000,
      default: 100,
      description: 'deliveries one worker claims per round',
    }),
    WEBHOOK_WORKER_CONCURRENCY: int({
      minimum: 1,
      maximum: 1000,
      default: 50,
      description: 'sends in flight per worker',
    }),
    WEBHOOK_RETRY_BASE_SECONDS: int({
      minimum: 1,
      maximum: 86_400,
      default: 5,
      description: "ceiling of the first retry's jittered delay; it doubles per failed attempt",
    }),
    WEBHOOK_RETRY_MAX_DELAY_SECONDS: int({
      minimum: 1,
      maximum: 604_800,
      default: 21_600,
      description: 'largest retry delay ceiling (>= WEBHOOK_RETRY_BASE_SECONDS)',
    }),
    WEBHOOK_RETRY_WINDOW_SECONDS: int({
      minimum: 1,
      maximum: 2_592_000,
      default: 259_200,
      description: 'a delivery is retried until at least this long after its first attempt, then marked failed',
    }),
    LOCKER_PICKUP_REMINDER_HOURS: int({
      minimum: 1,
      maximum: 720,
      default: 24,
      description: 'a parcel in a locker this long gets its PickupReminder',
    }),
    LOCKER_EXPIRY_DAYS: int({
      minimum: 1,
      maximum: 365,
      default: 7,
      description: 'a parcel uncollected from a locker this many days is Expired',
    }),
  },
})

export function webhooksConfig(env: Env): { webhooks: WebhooksOptions } {
  return {
    webhooks: Object.freeze({
      workerInServe: env.MAILROOM_WEBHOOK_WORKER === 'true',
      allowHttp: env.MAILROOM_WEBHOOK_ALLOW_HTTP === 'true',
      allowCidrs: env.MAILROOM_WEBHOOK_ALLOW_CIDRS.split(',')
        .map((c) => c.trim())
        .filter(Boolean),
      retentionDays: env.WEBHOOK_RETENTION_DAYS,
      batchSize: env.WEBHOOK_WORKER_BATCH,
      concurrency: env.WEBHOOK_WORKER_CONCURRENCY,
      retry: {
        baseDelayMs: env.WEBHOOK_RETRY_BASE_SECONDS * 1000,
        maxDelayMs: env.WEBHOOK_RETRY_MAX_DELAY_SECONDS * 1000,
        windowMs: env.WEBHOOK_RETRY_WINDOW_SECONDS * 1000,
      },
      lockerReminderHours: env.LOCKER_PICKUP_REMINDER_HOURS,
      lockerExpiryDays: env.LOCKER_EXPIRY_DAYS,
    }),
  }
}

export function webhooksProblems(env: Env): string[] {
  return env.WEBHOOK_RETRY_BASE_SECONDS > env.WEBHOOK_RETRY_MAX_DELAY_SECONDS
    ? ['WEBHOOK_RETRY_BASE_SECONDS: must not exceed WEBHOOK_RETRY_MAX_DELAY_SECONDS']
    : []
}
