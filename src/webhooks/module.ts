import { randomBytes } from 'node:crypto'
import { hostname } from 'node:os'
import type { FastifyPluginAsync } from 'fastify'
import type { Db } from '../platform/db/database.js'
import type { Clock } from '../platform/kit/clock.js'
import type { IdGenerator } from '../platform/kit/ids.js'
import { configRoutes } from './api/configs.js'
import { createConfigsService, type ConfigsService } from './configs-service.js'
import { createDeliveriesService, type DeliveriesService } from './deliveries-service.js'
import { deliveryRoutes } from './api/deliveries.js'
import { destinationRules, type Lookup } from './delivery/destination.js'
import { createGuardedSender, type HttpSender } from './delivery/http-sender.js'
import { createJobs } from './jobs/jobs.js'
import { TokenCache } from './delivery/oauth2.js'
import { processLog } from '../platform/kit/process-log.js'
import { createWorker, type WorkerLog, type WorkerStep } from './delivery/worker.js'
import { WindowQuota } from '../platform/fairness/quotas.js'
import { WindowCounter } from '../platform/fairness/window-counter.js'
import type { WebhookVariant } from '../events/index.js'
import type { PeriodicTask } from '../platform/jobs/scheduler.js'
import './store/tables.js'

// The webhooks domain's public face: its services, its routes for one variant's mount, and the
// background worker that serve and `mailroom worker` start.
export type { WebhookVariant } from '../events/index.js'
export type { WorkerStep, WorkerLog }

/** Webhook delivery's settings (WEBHOOK_*). */
export interface WebhooksOptions {
  /** Run the delivery worker inside `serve` (it also runs alone as `mailroom worker`). */
  workerInServe: boolean
  allowHttp: boolean
  allowCidrs: string[]
  retentionDays: number
  batchSize: number
  concurrency: number
  /** The retry schedule (src/webhooks/delivery/retry.ts), in ms. */
  retry: { baseDelayMs: number; maxDelayMs: number; windowMs: number }
  lockerReminderHours: number
  lockerExpiryDays: number
}

export interface WebhooksDeps {
  db: Db
  clock: Clock
  ids: IdGenerator
  config: Readonly<{ webhooks: WebhooksOptions; limits: { webhooks: { configs: number; testsPerMinute: number } } }>
  /** AES-256-GCM key for credentials at rest, derived from the master secret. */
  sealKey: Buffer
  /** Outbound HTTP; default: undici with the connect-time SSRF guard. */
  sender?: HttpSender
  /** Name resolution for the SSRF checks; default: the system resolver. */
  lookup?: Lookup
  /** [0, 1) for the retry jitter; default Math.random. */
  random?: () => number
  log?: WorkerLog
  /** Identifies this process's leases; default host:pid:random. */
  workerId?: string
  /** How often an idle worker looks for work; default 200 ms. */
  pollMs?: number
  /** Longest sleep of a worker that keeps finding nothing (see WorkerDeps.idlePollMs); default pollMs. */
  idlePollMs?: number
}

export interface Webhooks {
  configs: ConfigsService
  deliveries: DeliveriesService
  /** Starts fan-out and delivery; resolves the returned stop once in-flight sends end. */
  start(): () => Promise<void>
  /** The locker-event jobs, the sweep and the retention purge, for the app's one scheduler. */
  periodicTasks: readonly PeriodicTask[]
  /** One deterministic step: jobs, fan-out, and every delivery due at the clock's now (tests drive the worker with it). */
  runOnce(): Promise<WorkerStep>
  /** Closes the outbound connection pool. */
  close(): Promise<void>
  /** Package events were just committed in this process: the running worker looks for them now. */
  notify(): void
}

export function createWebhooks(deps: WebhooksDeps): Webhooks {
  const { db, clock, ids, sealKey, config } = deps
  const rules = destinationRules({
    allowHttp: config.webhooks.allowHttp,
    allowCidrs: config.webhooks.allowCidrs,
    lookup: deps.lookup,
  })
  const sender = deps.sender ?? createGuardedSender(rules)
  const jobs = createJobs({
    db,
    clock,
    ids,
    lockerReminderHours: config.webhooks.lockerReminderHours,
    lockerExpiryDays: config.webhooks.lockerExpiryDays,
    retentionDays: config.webhooks.retentionDays,
  })
  const worker = createWorker({
    db,
    clock,
    ids,
    sealKey,
    sender,
    jobs,
    tokens: new TokenCache(sender, clock),
    random: deps.random ?? Math.random,
    // Errors only when no log is given (scripts, tests); the processes pass theirs (context.ts).
    log: deps.log ?? processLog('error'),
    workerId: deps.workerId ?? `${hostname()}:${process.pid}:${randomBytes(4).toString('hex')}`,
    batchSize: config.webhooks.batchSize,
    concurrency: config.webhooks.concurrency,
    retry: config.webhooks.retry,
    pollMs: deps.pollMs ?? 200,
    idlePollMs: deps.idlePollMs,
  })
  return {
    configs: createConfigsService({ db, clock, ids, sealKey, rules, maxConfigs: config.limits.webhooks.configs }),
    deliveries: createDeliveriesService({
      db,
      clock,
      ids,
      testQuota: new WindowQuota(
        new WindowCounter(db, clock),
        'webhook test sends',
        config.limits.webhooks.testsPerMinute,
        60,
      ),
    }),
    start: () => {
      const stop = worker.start()
      return async () => {
        await stop()
        await sender.close()
      }
    },
    periodicTasks: worker.periodicTasks,
    runOnce: () => worker.runOnce(),
    close: () => sender.close(),
    notify: () => worker.nudge(),
  }
}

/** The webhook interface of one variant's mount (registered once per mount, behind the auth hook). */
export const webhookRoutes: FastifyPluginAsync<{ webhooks: Webhooks; variant: WebhookVariant }> = async (app, opts) => {
  await app.register(configRoutes, opts)
  await app.register(deliveryRoutes, opts)
}
