import { availableParallelism } from 'node:os'
import { int, num, oneOf, section, text } from './define.js'
import type { Env } from './index.js'

const RATE_MAX = 1_000_000_000
const FAIRNESS = 'tenant-gate|heavy-slots|time-share|presence|refusal-pacing'
/** A concurrency bound turned off by FAIRNESS_OFF: the settings' maximum, more than any process runs at once. */
const UNBOUNDED = 1000
const OVERRIDES = '^([A-Za-z0-9._~-]+=\\d+)?(,[A-Za-z0-9._~-]+=\\d+)*$'

/** Availability (docs/limits.md): no tenant holds a connection, the pool or another tenant's share for long. */
export const limitsSettings = section({
  title: 'Availability, fairness and quotas',
  keys: {
    DB_STATEMENT_TIMEOUT_MS: int({
      minimum: 0,
      maximum: 3_600_000,
      default: 15_000,
      description:
        'PostgreSQL: longest SQL statement of a request, answered 503 (0: none); PGlite cannot interrupt a statement',
    }),
    REFERENCE_CACHE_SECONDS: int({
      minimum: 0,
      maximum: 60,
      default: 5,
      description:
        'how long a process remembers carriers, custom field definitions and sites as package writes and records read them; changes through another process show within this time (0: always read)',
    }),
    TENANT_MAX_SEARCHES: int({
      minimum: 1,
      maximum: 1000,
      default: 2,
      description: 'package searches (list and custom) one subscription runs at once per process (429 beyond)',
    }),
    TENANT_MAX_EXPORTS: int({
      minimum: 1,
      maximum: 1000,
      default: 1,
      description: 'CSV exports one subscription runs at once per process',
    }),
    TENANT_MAX_BULK_OPERATIONS: int({
      minimum: 1,
      maximum: 1000,
      default: 2,
      description:
        'list-taking operations (carriers of a location, sites or carriers of up to 200 locations) one subscription runs at once per process',
    }),
    HEAVY_OPERATIONS_MAX: int({
      minimum: 0,
      maximum: 1000,
      default: 0,
      description:
        "searches and list-taking operations of all subscriptions together that one process runs at once (the rest wait their turn, 503 past DB_STATEMENT_TIMEOUT_MS); 0: half the machine's cores, at least 1",
    }),
    HEAVY_SHARE: num({
      exclusiveMinimum: 0,
      maximum: 1,
      default: 0.3,
      description:
        "of the process's heavy slots, the fraction one subscription keeps busy over time while other subscriptions are served (1: no time share)",
    }),
    HEAVY_BURST_MS: int({
      minimum: 0,
      maximum: 600_000,
      default: 1000,
      description: 'slot-milliseconds of heavy work a subscription runs at full speed before its time share applies',
    }),
    RATE_LIMIT_MAX: int({
      minimum: 1,
      maximum: RATE_MAX,
      default: 12_000,
      description: 'requests per subscription (per client address before authentication) per window',
    }),
    RATE_LIMIT_WINDOW_SECONDS: int({
      minimum: 1,
      maximum: 3600,
      default: 60,
      description: 'the window of RATE_LIMIT_MAX',
    }),
    RATE_LIMIT_OVERRIDES: text({
      default: '',
      pattern: OVERRIDES,
      description: `per-subscription limits per window: subId=max,subId=max, each max at most ${RATE_MAX} (subIds: \`mailroom clients list\`)`,
    }),
    RATE_LIMIT_SYNC_MS: int({
      minimum: 10,
      maximum: 60_000,
      default: 250,
      description:
        'how often each process adds its request counts to the shared windows (database store): at most one write per interval per process; a subscription can pass its limit by the requests it sends to the other processes within one interval',
    }),
    RATE_LIMIT_PROCESSES: int({
      minimum: 1,
      maximum: 1024,
      default: 8,
      description:
        "the most API processes sharing one database (database store): a process reports a subscription's requests to the shared window only once it counted RATE_LIMIT_MAX / this many in the window, so a read-only load below that writes nothing; past its limit a subscription can be admitted up to (this − 1) × that many requests more (docs/limits.md)",
    }),
    RATE_LIMIT_STORE: oneOf(['auto', 'memory', 'database'], {
      default: 'auto',
      description: 'auto: the database on PostgreSQL (shared by every process), memory on PGlite (one process)',
    }),
    FAIRNESS_OFF: text({
      default: '',
      pattern: `^((${FAIRNESS})(,(${FAIRNESS}))*)?$`,
      description:
        'fairness mechanisms turned off, to measure what each earns (npm run bench:neighbour): tenant-gate (no per-subscription bound on concurrent searches, exports, bulk operations), heavy-slots (no process-wide bound on heavy work), time-share (HEAVY_SHARE=1), presence (the time share applies even to a subscription served alone), refusal-pacing (REFUSAL_DELAY_MS=0); comma-separated',
    }),
    REFUSAL_DELAY_MS: int({
      minimum: 0,
      maximum: 10_000,
      default: 1_000,
      description:
        'a 429 is answered after this long (never longer than its Retry-After): a client resending at once sends one request per connection per delay, not thousands a second (0: at once)',
    }),
    IMAGE_UPLOADS_PER_HOUR: int({
      minimum: 1,
      maximum: 1_000_000_000,
      default: 2_000,
      description: 'image uploads per subscription per hour (429 beyond)',
    }),
    IMAGE_UPLOAD_BYTES_PER_HOUR: int({
      minimum: 1024,
      maximum: 2 ** 50,
      default: 2 * 1024 ** 3,
      description: 'bytes of image uploads per subscription per hour',
    }),
    IMAGE_TEMP_MAX: int({
      minimum: 1,
      maximum: 1_000_000_000,
      default: 500,
      description: 'uploaded images not yet attached to a package that one subscription may hold',
    }),
    WEBHOOK_CONFIGS_MAX: int({
      minimum: 1,
      maximum: 1000,
      default: 50,
      description: 'webhook configurations per subscription',
    }),
    WEBHOOK_TESTS_PER_MINUTE: int({
      minimum: 1,
      maximum: 10_000,
      default: 10,
      description: 'webhook test sends per subscription per minute',
    }),
  },
})

export interface LimitsConfig {
  /** Reference data (carriers, custom field definitions, sites) remembered per subscription; see SubscriptionCache. */
  referenceCacheSeconds: number
  /** Per-subscription bounds: statement time, concurrent expensive operations, request rate, quotas. */
  limits: {
    statementTimeoutMs: number
    concurrent: { searches: number; exports: number; bulkOperations: number }
    /** Searches and bulk operations of all subscriptions at once in this process (WorkSlots). */
    heavyOperations: number
    /** One subscription's share of the heavy slots over time, and its burst (HeavyShare). */
    heavyShare: { share: number; burstMs: number }
    /** How long a 429 waits before it is sent (at most its Retry-After); see platform/http refusal pacing. */
    refusalDelayMs: number
    /** FAIRNESS_OFF=presence: the time share applies whoever else is served (fairness/presence.ts). */
    presence: boolean
    rate: {
      max: number
      windowSeconds: number
      overrides: ReadonlyMap<string, number>
      store: Env['RATE_LIMIT_STORE']
      syncMs: number
      processes: number
    }
    images: { uploadsPerHour: number; bytesPerHour: number; tempHeld: number }
    webhooks: { configs: number; testsPerMinute: number }
  }
}

const overridesOf = (list: string) =>
  list
    .split(',')
    .filter(Boolean)
    .map((pair) => [pair.split('=')[0]!, Number(pair.split('=')[1])] as const)

export function limitsConfig(env: Env): LimitsConfig {
  const off = new Set(env.FAIRNESS_OFF.split(',').filter(Boolean))
  return {
    referenceCacheSeconds: env.REFERENCE_CACHE_SECONDS,
    limits: {
      statementTimeoutMs: env.DB_STATEMENT_TIMEOUT_MS,
      // FAIRNESS_OFF: each mechanism off as its own setting would turn it off (the bound at its maximum).
      concurrent: off.has('tenant-gate')
        ? { searches: UNBOUNDED, exports: UNBOUNDED, bulkOperations: UNBOUNDED }
        : {
            searches: env.TENANT_MAX_SEARCHES,
            exports: env.TENANT_MAX_EXPORTS,
            bulkOperations: env.TENANT_MAX_BULK_OPERATIONS,
          },
      heavyOperations: off.has('heavy-slots')
        ? UNBOUNDED
        : env.HEAVY_OPERATIONS_MAX || Math.max(1, Math.floor(availableParallelism() / 2)),
      heavyShare: { share: off.has('time-share') ? 1 : env.HEAVY_SHARE, burstMs: env.HEAVY_BURST_MS },
      refusalDelayMs: off.has('refusal-pacing') ? 0 : env.REFUSAL_DELAY_MS,
      presence: !off.has('presence'),
      rate: {
        max: env.RATE_LIMIT_MAX,
        windowSeconds: env.RATE_LIMIT_WINDOW_SECONDS,
        overrides: new Map(overridesOf(env.RATE_LIMIT_OVERRIDES)),
        store: env.RATE_LIMIT_STORE,
        syncMs: env.RATE_LIMIT_SYNC_MS,
        processes: env.RATE_LIMIT_PROCESSES,
      },
      images: {
        uploadsPerHour: env.IMAGE_UPLOADS_PER_HOUR,
        bytesPerHour: env.IMAGE_UPLOAD_BYTES_PER_HOUR,
        tempHeld: env.IMAGE_TEMP_MAX,
      },
      webhooks: { configs: env.WEBHOOK_CONFIGS_MAX, testsPerMinute: env.WEBHOOK_TESTS_PER_MINUTE },
    },
  }
}

export function limitsProblems(env: Env): string[] {
  // A malformed list is already reported by its pattern.
  if (typeof env.RATE_LIMIT_OVERRIDES !== 'string' || !new RegExp(OVERRIDES).test(env.RATE_LIMIT_OVERRIDES)) return []
  return overridesOf(env.RATE_LIMIT_OVERRIDES)
    .filter(([, max]) => max > RATE_MAX)
    .map(([subId]) => `RATE_LIMIT_OVERRIDES: the limit of ${subId} must be at most ${RATE_MAX}`)
}
