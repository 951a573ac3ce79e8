import type { NotificationsOptions } from '../notifications/index.js'
import type { WebhooksOptions } from '../webhooks/index.js'
import type { BlobStoreConfig } from '../images/index.js'
import { Type, type Static } from '@sinclair/typebox'
import { Value } from '@sinclair/typebox/value'
import { availableParallelism } from 'node:os'
import path from 'node:path'

/**
 * Every setting of the service, read once from the environment, validated, frozen.
 * Nothing else in the code base reads process.env.
 */
const Prefix = Type.String({
  pattern: '^(/[A-Za-z0-9._~-]+)*/?$',
  description: 'mount prefix, e.g. /auth, or / for the root',
})
const Bool = Type.Union([Type.Literal('true'), Type.Literal('false')])

export const EnvSchema = Type.Object({
  PORT: Type.Integer({ minimum: 0, maximum: 65535, default: 8080 }),
  HOST: Type.String({ minLength: 1, default: '127.0.0.1' }),
  TRUST_PROXY: Type.String({
    default: 'false',
    pattern: '^(true|false|\\d{1,2}|[0-9a-fA-F:.]+(/\\d{1,3})?(,[0-9a-fA-F:.]+(/\\d{1,3})?)*)$',
    description:
      'whose X-Forwarded-For to believe: false (default), true, a hop count, or comma-separated proxy addresses/CIDRs',
  }),
  DATABASE_URL: Type.Optional(Type.String({ pattern: '^postgres(ql)?://' })),
  DATABASE_POOL_SIZE: Type.Integer({
    minimum: 1,
    maximum: 200,
    default: 10,
    description: 'connections per process; about 2-4 x the database cores',
  }),
  MAILROOM_DATA_DIR: Type.String({ minLength: 1, default: './data' }),
  MAILROOM_ENV: Type.Union(
    [Type.Literal('development'), Type.Literal('qa'), Type.Literal('sandbox'), Type.Literal('production')],
    { default: 'development' },
  ),
  MAILROOM_SECRET: Type.Optional(Type.String({ minLength: 32, description: 'master secret, at least 32 characters' })),
  MAILROOM_PUBLIC_URL: Type.Optional(Type.String({ pattern: '^https?://[^/]+(/.*)?$' })),
  AUTH_REGION: Type.Union([Type.Literal('us'), Type.Literal('ca'), Type.Literal('global')], { default: 'us' }),
  RECEIVING_PREFIX: { ...Prefix, default: '/' },
  AUTH_PREFIX: { ...Prefix, default: '/auth' },
  TRACKING_WEBHOOKS_PREFIX: { ...Prefix, default: '/webhooks/tracking' },
  LOCKER_WEBHOOKS_PREFIX: { ...Prefix, default: '/webhooks/locker' },
  MAILROOM_BOOTSTRAP_CLIENT: Type.Optional(
    Type.String({
      pattern: '^[A-Za-z0-9._~-]{8,128}:[^:]{32,256}(:[A-Za-z0-9 ._~-]{1,100})?$',
      description: 'clientId:clientSecret[:subscription]',
    }),
  ),
  MAILROOM_DEMO: Type.Optional(Bool),
  LOG_LEVEL: Type.Union(
    ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'].map((l) => Type.Literal(l)),
    { default: 'info' },
  ),
  BODY_LIMIT_BYTES: Type.Integer({ minimum: 1024, default: 1_048_576 }),
  IMAGE_MAX_BYTES: Type.Integer({ minimum: 1024, default: 10 * 1_048_576 }),
  IMAGE_MAX_PIXELS: Type.Integer({
    minimum: 10_000,
    maximum: 500_000_000,
    default: 50_000_000,
    description: 'largest label photo decoded, in pixels as its header declares them (400 above it)',
  }),
  IMAGE_DECODE_THREADS: Type.Integer({
    minimum: 0,
    maximum: 64,
    default: 0,
    description: 'worker threads that decode label photos; 0: one less than the cores, at least 1, at most 4',
  }),
  IMAGE_DECODE_QUEUE: Type.Integer({
    minimum: 0,
    maximum: 10_000,
    default: 16,
    description: 'photos that may wait for a decode thread; beyond it 503 with Retry-After',
  }),
  IMAGE_DECODES_PER_SUBSCRIPTION: Type.Integer({
    minimum: 1,
    maximum: 1000,
    default: 2,
    description: 'photos one subscription decodes at once; beyond it 429 with Retry-After',
  }),
  IMAGE_DECODE_TIMEOUT_MS: Type.Integer({
    minimum: 100,
    maximum: 600_000,
    default: 20_000,
    description: 'budget of one photo decode, waiting for a thread included; past it the decode is stopped (503)',
  }),
  SIGNING_KEY_ROTATION_DAYS: Type.Integer({ minimum: 1, maximum: 365, default: 30 }),
  TOKEN_SIGNING_ALG: Type.Union([Type.Literal('ES256'), Type.Literal('RS256'), Type.Literal('EdDSA')], {
    default: 'ES256',
    description:
      'algorithm of new token signing keys; a change rotates at the next start, older keys verify until they expire',
  }),
  CLIENT_STATUS_CACHE_SECONDS: Type.Integer({ minimum: 0, maximum: 30, default: 10 }),
  REFERENCE_CACHE_SECONDS: Type.Integer({
    minimum: 0,
    maximum: 60,
    default: 5,
    description:
      'how long a process remembers carriers, custom field definitions and sites as package writes and records read them; changes through another process show within this time (0: always read)',
  }),
  TOKEN_FAILURE_LIMIT: Type.Integer({ minimum: 1, default: 10 }),
  TOKEN_FAILURE_WINDOW_SECONDS: Type.Integer({ minimum: 1, default: 300 }),
  PASSWORD_HASH_CONCURRENCY: Type.Integer({
    minimum: 0,
    maximum: 64,
    default: 0,
    description:
      'password hashes computed at once (0: half the cores, at least 1); the rest wait in PASSWORD_HASH_QUEUE',
  }),
  PASSWORD_HASH_QUEUE: Type.Integer({
    minimum: 0,
    maximum: 10_000,
    default: 32,
    description: 'password hashes that may wait for a turn; past it sign-ins and password changes get 429',
  }),
  PASSWORD_HASHES_PER_KEY: Type.Integer({
    minimum: 1,
    maximum: 1_000,
    default: 4,
    description: 'password hashes running or waiting for one address, or for one subscription; past it 429',
  }),
  PICKUP_CODE_FAILURE_LIMIT: Type.Integer({
    minimum: 1,
    default: 10,
    description:
      'wrong or used pickup codes one API client may send per window before 429 + Retry-After; the subscription as a whole 3 times as many',
  }),
  PICKUP_CODE_FAILURE_WINDOW_SECONDS: Type.Integer({
    minimum: 1,
    default: 900,
    description: 'the window of PICKUP_CODE_FAILURE_LIMIT; each further lock doubles, at most 4 windows',
  }),
  SHUTDOWN_GRACE_SECONDS: Type.Integer({ minimum: 1, maximum: 300, default: 25 }),
  MAILROOM_WEBHOOK_WORKER: { ...Bool, default: 'true', description: 'run the webhook delivery worker inside `serve`' },
  MAILROOM_WEBHOOK_ALLOW_HTTP: {
    ...Bool,
    default: 'false',
    description: 'accept plain http:// webhook URLs (development, tests)',
  },
  MAILROOM_WEBHOOK_ALLOW_CIDRS: Type.String({
    default: '',
    pattern: '^([0-9a-fA-F:.]+/\\d{1,3})?(,[0-9a-fA-F:.]+/\\d{1,3})*$',
    description: 'comma-separated CIDRs exempt from the private-address refusal',
  }),
  WEBHOOK_RETENTION_DAYS: Type.Integer({ minimum: 1, maximum: 3650, default: 30 }),
  WEBHOOK_WORKER_BATCH: Type.Integer({ minimum: 1, maximum: 1000, default: 100 }),
  WEBHOOK_WORKER_CONCURRENCY: Type.Integer({ minimum: 1, maximum: 1000, default: 50 }),
  WEBHOOK_RETRY_BASE_SECONDS: Type.Integer({
    minimum: 1,
    maximum: 86_400,
    default: 5,
    description: "ceiling of the first retry's jittered delay; it doubles per failed attempt",
  }),
  WEBHOOK_RETRY_MAX_DELAY_SECONDS: Type.Integer({
    minimum: 1,
    maximum: 604_800,
    default: 21_600,
    description: 'largest retry delay ceiling (>= WEBHOOK_RETRY_BASE_SECONDS)',
  }),
  WEBHOOK_RETRY_WINDOW_SECONDS: Type.Integer({
    minimum: 1,
    maximum: 2_592_000,
    default: 259_200,
    description: 'a delivery is retried until at least this long after its first attempt',
  }),
  LOCKER_PICKUP_REMINDER_HOURS: Type.Integer({ minimum: 1, maximum: 720, default: 24 }),
  LOCKER_EXPIRY_DAYS: Type.Integer({ minimum: 1, maximum: 365, default: 7 }),
  // Recipient notifications (issue 17): no SMTP_URL, and every email is recorded as suppressed.
  SMTP_URL: Type.Optional(
    Type.String({
      pattern: '^smtps?://[^\\s]+$',
      description: 'smtp://user:pass@host:port (STARTTLS when offered) or smtps://… (TLS from the start)',
    }),
  ),
  MAIL_FROM: Type.String({
    minLength: 3,
    default: 'mailroom <mailroom@localhost>',
    description: 'the From of every email',
  }),
  NOTIFY_RETRY_BASE_SECONDS: Type.Integer({ minimum: 1, maximum: 86_400, default: 30 }),
  NOTIFY_MAX_ATTEMPTS: Type.Integer({ minimum: 1, maximum: 100, default: 8 }),
  NOTIFY_SEND_TIMEOUT_SECONDS: Type.Integer({
    minimum: 1,
    maximum: 300,
    default: 30,
    description:
      'SMTP connect, greeting and socket timeouts; a claimed email is claimed again 2x this + 5 s after a worker died',
  }),
  // Availability (issue 14): no client holds a socket, a connection or the pool for long.
  HTTP_HEADERS_TIMEOUT_MS: Type.Integer({
    minimum: 100,
    default: 10_000,
    description: "time to receive a request's headers",
  }),
  HTTP_REQUEST_TIMEOUT_MS: Type.Integer({
    minimum: 100,
    default: 60_000,
    description: 'time to receive a whole request, body included (>= HTTP_HEADERS_TIMEOUT_MS)',
  }),
  HTTP_IDLE_TIMEOUT_MS: Type.Integer({
    minimum: 100,
    default: 60_000,
    description: 'a socket with no traffic either way for this long is closed',
  }),
  HTTP_KEEP_ALIVE_TIMEOUT_MS: Type.Integer({
    minimum: 100,
    default: 65_000,
    description:
      'an idle kept-alive connection is closed after this; keep it above the idle timeout of a proxy in front',
  }),
  DB_STATEMENT_TIMEOUT_MS: Type.Integer({
    minimum: 0,
    default: 15_000,
    description: 'PostgreSQL: longest statement of a request, answered 503 (0: none)',
  }),
  TENANT_MAX_SEARCHES: Type.Integer({
    minimum: 1,
    maximum: 1000,
    default: 2,
    description: 'package searches (list and custom) one subscription runs at once per process',
  }),
  TENANT_MAX_EXPORTS: Type.Integer({
    minimum: 1,
    maximum: 1000,
    default: 1,
    description: 'CSV exports one subscription runs at once per process',
  }),
  HEAVY_OPERATIONS_MAX: Type.Integer({
    minimum: 0,
    maximum: 1000,
    default: 0,
    description:
      "searches and list-taking operations of all subscriptions together that one process runs at once (the rest wait their turn); 0: half the machine's cores, at least 1",
  }),
  HEAVY_SHARE: Type.Number({
    exclusiveMinimum: 0,
    maximum: 1,
    default: 0.3,
    description:
      "of the process's heavy slots, the fraction one subscription keeps busy over time while other subscriptions are served (1: no time share; see shared/heavy-share.ts)",
  }),
  HEAVY_BURST_MS: Type.Integer({
    minimum: 0,
    maximum: 600_000,
    default: 1000,
    description: 'slot-milliseconds of heavy work a subscription runs at full speed before its time share applies',
  }),
  TENANT_MAX_BULK_OPERATIONS: Type.Integer({
    minimum: 1,
    maximum: 1000,
    default: 2,
    description:
      'list-taking operations (carriers of a location, sites or carriers of up to 200 locations) one subscription runs at once per process',
  }),
  RATE_LIMIT_MAX: Type.Integer({
    minimum: 1,
    default: 12_000,
    description: 'requests per subscription (per address before authentication) per window',
  }),
  RATE_LIMIT_WINDOW_SECONDS: Type.Integer({ minimum: 1, maximum: 3600, default: 60 }),
  REFUSAL_DELAY_MS: Type.Integer({
    minimum: 0,
    maximum: 10_000,
    default: 1_000,
    description:
      'a 429 is answered after this long (never longer than its Retry-After): a client resending at once sends one request per connection per delay, not thousands a second (0: at once)',
  }),
  RATE_LIMIT_OVERRIDES: Type.String({
    default: '',
    pattern: '^([A-Za-z0-9._~-]+=\\d+)?(,[A-Za-z0-9._~-]+=\\d+)*$',
    description: 'per-subscription limits per window: subId=max,subId=max',
  }),
  RATE_LIMIT_STORE: Type.Union([Type.Literal('auto'), Type.Literal('memory'), Type.Literal('database')], {
    default: 'auto',
    description: 'auto: the database on PostgreSQL (shared by every process), memory on PGlite (one process)',
  }),
  IMAGE_UPLOADS_PER_HOUR: Type.Integer({
    minimum: 1,
    default: 2_000,
    description: 'image uploads per subscription per hour',
  }),
  IMAGE_UPLOAD_BYTES_PER_HOUR: Type.Integer({
    minimum: 1024,
    default: 2 * 1024 ** 3,
    description: 'bytes of image uploads per subscription per hour',
  }),
  IMAGE_TEMP_MAX: Type.Integer({
    minimum: 1,
    default: 500,
    description: 'uploaded images not yet attached to a package that one subscription may hold',
  }),
  // Image store (issue 16.1): where image bytes live. Parsed by blobStoreOf below.
  BLOB_STORE: Type.Union([Type.Literal('auto'), Type.Literal('local'), Type.Literal('postgres'), Type.Literal('s3')], {
    default: 'auto',
    description:
      'where image bytes live; auto: s3 when BLOB_STORE_URL is set, else the database on PostgreSQL and MAILROOM_DATA_DIR/images on the embedded database',
  }),
  BLOB_STORE_URL: Type.Optional(
    Type.String({
      pattern: '^s3://',
      description: 's3://bucket[/prefix][?endpoint=https://host:port&region=us-east-1&forcePathStyle=true]',
    }),
  ),
  BLOB_STORE_ACCESS_KEY_ID: Type.Optional(Type.String({ minLength: 1 })),
  BLOB_STORE_SECRET_ACCESS_KEY: Type.Optional(Type.String({ minLength: 1 })),
  WEBHOOK_CONFIGS_MAX: Type.Integer({
    minimum: 1,
    default: 50,
    description: 'webhook configurations per subscription',
  }),
  WEBHOOK_TESTS_PER_MINUTE: Type.Integer({
    minimum: 1,
    default: 10,
    description: 'webhook test sends per subscription per minute',
  }),
  CONSOLE_SESSION_IDLE_MINUTES: Type.Integer({
    minimum: 1,
    maximum: 1440,
    default: 30,
    description: 'a console session ends after this many minutes without a request',
  }),
  CONSOLE_SESSION_MAX_HOURS: Type.Integer({
    minimum: 1,
    maximum: 720,
    default: 12,
    description: 'a console session ends this many hours after sign-in, whatever the activity',
  }),
})

type Env = Static<typeof EnvSchema>
export type Environment = Env['MAILROOM_ENV']
export type AuthRegion = Env['AUTH_REGION']
export type LogLevel = Env['LOG_LEVEL']

export interface Config {
  port: number
  host: string
  /** Fastify's trustProxy: which peers may tell us the client address through X-Forwarded-For. */
  trustProxy: boolean | number | string
  env: Environment
  dataDir: string
  database: { kind: 'postgres'; url: string; poolSize: number } | { kind: 'pglite'; dir: string }
  /** Absent: generated and kept in the data dir (refused in production). */
  masterSecret: string | undefined
  publicUrl: string
  /** MAILROOM_PUBLIC_URL was not set: publicUrl is http://localhost:PORT (never in production). */
  publicUrlFromPort: boolean
  authRegion: AuthRegion
  prefixes: { receiving: string; auth: string; trackingWebhooks: string; lockerWebhooks: string }
  bootstrapClient: { clientId: string; clientSecret: string; subscription: string } | undefined
  /** Create and print a demo client on first start (development and sandbox). */
  demo: boolean
  logLevel: LogLevel
  bodyLimitBytes: number
  imageMaxBytes: number
  /** Label photos (POST …/decode-image): decoded in worker threads, bounded per subscription and in time. */
  imageDecode: { maxPixels: number; threads: number; maxQueue: number; perSubscription: number; timeoutMs: number }
  signingKeyRotationDays: number
  tokenSigningAlg: Env['TOKEN_SIGNING_ALG']
  clientStatusCacheSeconds: number
  /** Reference data (carriers, custom field definitions, sites) remembered per subscription; see SubscriptionCache. */
  referenceCacheSeconds: number
  tokenFailureLimit: number
  tokenFailureWindowSeconds: number
  /** Wrong pickup codes per API client and window (pickups/service.ts); 3× per subscription. */
  pickupCodeFailureLimit: number
  passwordHashing: { concurrency: number; maxWaiting: number; perKey: number }
  pickupCodeFailureWindowSeconds: number
  shutdownGraceSeconds: number
  webhooks: WebhooksOptions
  /** Recipient email notifications (src/notifications). */
  notifications: NotificationsOptions
  /** Socket timeouts (ms): slow clients cannot hold sockets. */
  http: { headersTimeoutMs: number; requestTimeoutMs: number; idleTimeoutMs: number; keepAliveTimeoutMs: number }
  /** Per-subscription bounds: statement time, concurrent expensive operations, request rate, quotas. */
  limits: {
    statementTimeoutMs: number
    concurrent: { searches: number; exports: number; bulkOperations: number }
    /** Searches and bulk operations of all subscriptions at once in this process (WorkSlots). */
    heavyOperations: number
    /** One subscription's share of the heavy slots over time, and its burst (HeavyShare). */
    heavyShare: { share: number; burstMs: number }
    /** How long a 429 waits before it is sent (at most its Retry-After); see http/refusal-pacing.ts. */
    refusalDelayMs: number
    rate: {
      max: number
      windowSeconds: number
      overrides: ReadonlyMap<string, number>
      store: 'auto' | 'memory' | 'database'
    }
    images: { uploadsPerHour: number; bytesPerHour: number; tempHeld: number }
    webhooks: { configs: number; testsPerMinute: number }
  }
  /** Where image bytes live; `auto` is decided by the database engine (see images/blob-stores.ts). */
  blobStore: BlobStoreConfig
  /** Console sign-in sessions: idle (sliding) and absolute lifetimes. */
  consoleSessions: { idleMinutes: number; maxHours: number }
}

const BUCKET = /^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$/
const S3_OPTIONS = new Set(['endpoint', 'region', 'forcePathStyle'])

/** BLOB_STORE and its companions: the store, or the problems (credentials are never echoed). */
function blobStoreOf(env: Env): { store?: BlobStoreConfig; problems: string[] } {
  const problems: string[] = []
  const url = env.BLOB_STORE_URL
  const kind = env.BLOB_STORE === 'auto' && url ? 's3' : env.BLOB_STORE
  if (url && kind !== 's3') problems.push(`BLOB_STORE_URL: only for BLOB_STORE=s3 (or auto), not ${kind}`)
  if (!!env.BLOB_STORE_ACCESS_KEY_ID !== !!env.BLOB_STORE_SECRET_ACCESS_KEY)
    problems.push('BLOB_STORE_ACCESS_KEY_ID / BLOB_STORE_SECRET_ACCESS_KEY: set both or neither')
  if (kind !== 's3') return { store: { kind }, problems }
  if (!url)
    return { problems: [...problems, 'BLOB_STORE_URL: BLOB_STORE=s3 needs s3://bucket[/prefix][?endpoint=…&region=…]'] }
  let parsed: URL
  try {
    parsed = new URL(url)
  } catch {
    return { problems: [...problems, `BLOB_STORE_URL=${JSON.stringify(url)}: not a URL`] }
  }
  if (parsed.username || parsed.password)
    problems.push(
      'BLOB_STORE_URL: credentials go in BLOB_STORE_ACCESS_KEY_ID / BLOB_STORE_SECRET_ACCESS_KEY, not in the URL',
    )
  if (!BUCKET.test(parsed.hostname) || parsed.port)
    problems.push(`BLOB_STORE_URL: ${JSON.stringify(parsed.hostname)} is not a bucket name`)
  for (const k of parsed.searchParams.keys())
    if (!S3_OPTIONS.has(k)) problems.push(`BLOB_STORE_URL: unknown option ${k} (endpoint, region, forcePathStyle)`)
  const endpoint = parsed.searchParams.get('endpoint') ?? undefined
  if (endpoint !== undefined && !/^https?:\/\/[^/?#]+\/?$/.test(endpoint))
    problems.push(`BLOB_STORE_URL: endpoint=${JSON.stringify(endpoint)} must be http(s)://host[:port]`)
  const pathStyle = parsed.searchParams.get('forcePathStyle')
  if (pathStyle !== null && pathStyle !== 'true' && pathStyle !== 'false')
    problems.push('BLOB_STORE_URL: forcePathStyle must be true or false')
  const prefix = decodeURIComponent(parsed.pathname.replace(/^\/+/, ''))
  if (problems.length > 0) return { problems }
  return {
    problems,
    store: {
      kind: 's3',
      bucket: parsed.hostname,
      prefix: prefix === '' || prefix.endsWith('/') ? prefix : `${prefix}/`,
      endpoint,
      region: parsed.searchParams.get('region') ?? 'us-east-1',
      // S3-compatible servers mostly serve buckets as paths, not as host names.
      forcePathStyle: pathStyle === null ? endpoint !== undefined : pathStyle === 'true',
      credentials:
        env.BLOB_STORE_ACCESS_KEY_ID && env.BLOB_STORE_SECRET_ACCESS_KEY
          ? { accessKeyId: env.BLOB_STORE_ACCESS_KEY_ID, secretAccessKey: env.BLOB_STORE_SECRET_ACCESS_KEY }
          : undefined,
    },
  }
}

export class ConfigError extends Error {
  constructor(readonly problems: string[]) {
    super(`invalid configuration:\n${problems.map((p) => `  - ${p}`).join('\n')}`)
    this.name = 'ConfigError'
  }
}

/** '/' and '' both mean the root; otherwise no trailing slash. */
function normalizePrefix(p: string): string {
  const trimmed = p.replace(/\/+$/, '')
  return trimmed === '' ? '' : trimmed
}

export function loadConfig(source: Record<string, string | undefined> = process.env): Readonly<Config> {
  const known = Object.keys(EnvSchema.properties)
  const raw: Record<string, unknown> = {}
  for (const key of known) {
    const v = source[key]
    if (v !== undefined && v !== '') raw[key] = v
  }
  const withDefaults = Value.Default(EnvSchema, Value.Convert(EnvSchema, raw))
  const problems = [...Value.Errors(EnvSchema, withDefaults)].map((e) => {
    const key = e.path.replace(/^\//, '')
    const shown =
      key === 'MAILROOM_SECRET' || key === 'MAILROOM_BOOTSTRAP_CLIENT' || key === 'SMTP_URL'
        ? '(hidden)'
        : JSON.stringify(raw[key])
    const choices = (e.schema.anyOf as Array<{ const?: unknown }> | undefined)?.map((m) => m.const)
    const message = choices ? `must be one of ${choices.join(', ')}` : e.message
    return `${key}=${shown}: ${e.schema.description ? `${message} (${e.schema.description})` : message}`
  })
  // Unions report one error per member; keep each key's first message.
  const unique = [...new Map(problems.map((p) => [p.split('=')[0], p])).values()]
  // Cross-key rules are checked even when some key is malformed, so one run lists every problem.
  const env = withDefaults as Env

  const isProd = env.MAILROOM_ENV === 'production'
  const cross: string[] = []
  if (isProd && !env.DATABASE_URL)
    cross.push('DATABASE_URL: production refuses the embedded database; set a PostgreSQL URL')
  if (isProd && !env.MAILROOM_SECRET)
    cross.push('MAILROOM_SECRET: production refuses a generated secret; set one (32+ random characters)')
  if (isProd && env.MAILROOM_BOOTSTRAP_CLIENT)
    cross.push('MAILROOM_BOOTSTRAP_CLIENT: refused in production; create clients with `mailroom clients create`')
  if (isProd && env.MAILROOM_DEMO === 'true') cross.push('MAILROOM_DEMO: refused in production')
  // The issuer is built from it: processes behind one load balancer must all name the same one.
  if (isProd && !env.MAILROOM_PUBLIC_URL)
    cross.push(
      'MAILROOM_PUBLIC_URL: production needs the public URL clients reach the service at (the same in every process); the token issuer is built from it',
    )
  const prefixOf = (v: unknown) => (typeof v === 'string' ? normalizePrefix(v) : undefined)
  const prefixes = {
    receiving: prefixOf(env.RECEIVING_PREFIX) as string,
    auth: prefixOf(env.AUTH_PREFIX) as string,
    trackingWebhooks: prefixOf(env.TRACKING_WEBHOOKS_PREFIX) as string,
    lockerWebhooks: prefixOf(env.LOCKER_WEBHOOKS_PREFIX) as string,
  }
  if (Object.values(prefixes).every((p) => p !== undefined)) {
    const mounted = [prefixes.auth, prefixes.trackingWebhooks, prefixes.lockerWebhooks]
    if (
      new Set(mounted).size !== mounted.length ||
      (mounted.includes(prefixes.receiving) && prefixes.receiving !== '')
    ) {
      cross.push('*_PREFIX: each interface needs its own mount prefix')
    }
    if (mounted.includes(''))
      cross.push('AUTH_PREFIX / *_WEBHOOKS_PREFIX: only the receiving interface may be mounted at /')
  }
  if (env.HTTP_HEADERS_TIMEOUT_MS > env.HTTP_REQUEST_TIMEOUT_MS)
    cross.push('HTTP_HEADERS_TIMEOUT_MS: must not exceed HTTP_REQUEST_TIMEOUT_MS')
  const blobStore = blobStoreOf(env)
  cross.push(...blobStore.problems)
  if (env.WEBHOOK_RETRY_BASE_SECONDS > env.WEBHOOK_RETRY_MAX_DELAY_SECONDS)
    cross.push('WEBHOOK_RETRY_BASE_SECONDS: must not exceed WEBHOOK_RETRY_MAX_DELAY_SECONDS')
  if (unique.length + cross.length > 0) throw new ConfigError([...unique, ...cross])

  const dataDir = path.resolve(env.MAILROOM_DATA_DIR)
  let bootstrapClient: Config['bootstrapClient']
  if (env.MAILROOM_BOOTSTRAP_CLIENT) {
    const [clientId, clientSecret, subscription] = env.MAILROOM_BOOTSTRAP_CLIENT.split(':') as [string, string, string?]
    bootstrapClient = { clientId, clientSecret, subscription: subscription ?? 'default' }
  }
  const config: Config = {
    port: env.PORT,
    host: env.HOST,
    trustProxy:
      env.TRUST_PROXY === 'true'
        ? true
        : env.TRUST_PROXY === 'false'
          ? false
          : /^\d+$/.test(env.TRUST_PROXY)
            ? Number(env.TRUST_PROXY)
            : env.TRUST_PROXY,
    env: env.MAILROOM_ENV,
    dataDir,
    database: env.DATABASE_URL
      ? { kind: 'postgres', url: env.DATABASE_URL, poolSize: env.DATABASE_POOL_SIZE }
      : { kind: 'pglite', dir: path.join(dataDir, 'pglite') },
    masterSecret: env.MAILROOM_SECRET,
    publicUrl: (env.MAILROOM_PUBLIC_URL ?? `http://localhost:${env.PORT}`).replace(/\/+$/, ''),
    publicUrlFromPort: env.MAILROOM_PUBLIC_URL === undefined,
    authRegion: env.AUTH_REGION,
    prefixes,
    bootstrapClient,
    demo: env.MAILROOM_DEMO
      ? env.MAILROOM_DEMO === 'true'
      : env.MAILROOM_ENV === 'development' || env.MAILROOM_ENV === 'sandbox',
    logLevel: env.LOG_LEVEL,
    bodyLimitBytes: env.BODY_LIMIT_BYTES,
    imageMaxBytes: env.IMAGE_MAX_BYTES,
    imageDecode: {
      maxPixels: env.IMAGE_MAX_PIXELS,
      threads: env.IMAGE_DECODE_THREADS || Math.min(4, Math.max(1, availableParallelism() - 1)),
      maxQueue: env.IMAGE_DECODE_QUEUE,
      perSubscription: env.IMAGE_DECODES_PER_SUBSCRIPTION,
      timeoutMs: env.IMAGE_DECODE_TIMEOUT_MS,
    },
    signingKeyRotationDays: env.SIGNING_KEY_ROTATION_DAYS,
    tokenSigningAlg: env.TOKEN_SIGNING_ALG,
    clientStatusCacheSeconds: env.CLIENT_STATUS_CACHE_SECONDS,
    referenceCacheSeconds: env.REFERENCE_CACHE_SECONDS,
    tokenFailureLimit: env.TOKEN_FAILURE_LIMIT,
    tokenFailureWindowSeconds: env.TOKEN_FAILURE_WINDOW_SECONDS,
    pickupCodeFailureLimit: env.PICKUP_CODE_FAILURE_LIMIT,
    passwordHashing: {
      concurrency: env.PASSWORD_HASH_CONCURRENCY || Math.max(1, Math.floor(availableParallelism() / 2)),
      maxWaiting: env.PASSWORD_HASH_QUEUE,
      perKey: env.PASSWORD_HASHES_PER_KEY,
    },
    pickupCodeFailureWindowSeconds: env.PICKUP_CODE_FAILURE_WINDOW_SECONDS,
    shutdownGraceSeconds: env.SHUTDOWN_GRACE_SECONDS,
    webhooks: {
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
    },
    notifications: {
      smtpUrl: env.SMTP_URL,
      mailFrom: env.MAIL_FROM,
      retryBaseMs: env.NOTIFY_RETRY_BASE_SECONDS * 1000,
      maxAttempts: env.NOTIFY_MAX_ATTEMPTS,
      sendTimeoutMs: env.NOTIFY_SEND_TIMEOUT_SECONDS * 1000,
    },
    http: {
      headersTimeoutMs: env.HTTP_HEADERS_TIMEOUT_MS,
      requestTimeoutMs: env.HTTP_REQUEST_TIMEOUT_MS,
      idleTimeoutMs: env.HTTP_IDLE_TIMEOUT_MS,
      keepAliveTimeoutMs: env.HTTP_KEEP_ALIVE_TIMEOUT_MS,
    },
    limits: {
      statementTimeoutMs: env.DB_STATEMENT_TIMEOUT_MS,
      concurrent: {
        searches: env.TENANT_MAX_SEARCHES,
        exports: env.TENANT_MAX_EXPORTS,
        bulkOperations: env.TENANT_MAX_BULK_OPERATIONS,
      },
      heavyOperations: env.HEAVY_OPERATIONS_MAX || Math.max(1, Math.floor(availableParallelism() / 2)),
      heavyShare: { share: env.HEAVY_SHARE, burstMs: env.HEAVY_BURST_MS },
      refusalDelayMs: env.REFUSAL_DELAY_MS,
      rate: {
        max: env.RATE_LIMIT_MAX,
        windowSeconds: env.RATE_LIMIT_WINDOW_SECONDS,
        overrides: new Map(
          env.RATE_LIMIT_OVERRIDES.split(',')
            .filter(Boolean)
            .map((pair) => [pair.split('=')[0]!, Number(pair.split('=')[1])] as const),
        ),
        store: env.RATE_LIMIT_STORE,
      },
      images: {
        uploadsPerHour: env.IMAGE_UPLOADS_PER_HOUR,
        bytesPerHour: env.IMAGE_UPLOAD_BYTES_PER_HOUR,
        tempHeld: env.IMAGE_TEMP_MAX,
      },
      webhooks: { configs: env.WEBHOOK_CONFIGS_MAX, testsPerMinute: env.WEBHOOK_TESTS_PER_MINUTE },
    },
    blobStore: blobStore.store!,
    consoleSessions: { idleMinutes: env.CONSOLE_SESSION_IDLE_MINUTES, maxHours: env.CONSOLE_SESSION_MAX_HOURS },
  }
  return Object.freeze({
    ...config,
    prefixes: Object.freeze(prefixes),
    webhooks: Object.freeze(config.webhooks),
    notifications: Object.freeze(config.notifications),
    imageDecode: Object.freeze(config.imageDecode),
  })
}

/** The token issuer: one per public URL and region, so a token minted for `ca` is refused by `us`. */
export function issuerOf(config: Pick<Config, 'publicUrl' | 'prefixes' | 'authRegion'>): string {
  return `${config.publicUrl}${config.prefixes.auth}/${config.authRegion}`
}

/**
 * Whether a token's `iss` is this deployment's. With MAILROOM_PUBLIC_URL (required in production)
 * only the one issuer. Without it (development), each process names itself after its own port, so
 * processes on one database on several ports accept each other's `http://localhost:<port>` issuer
 * of the same prefix and region: the port is not part of the deployment's identity, the signing
 * keys (shared through the database) are. Another region or prefix is still refused.
 */
export function issuerAcceptor(
  config: Pick<Config, 'publicUrl' | 'publicUrlFromPort' | 'prefixes' | 'authRegion'>,
): (iss: unknown) => boolean {
  const own = issuerOf(config)
  if (!config.publicUrlFromPort) return (iss) => iss === own
  const tail = `${config.prefixes.auth}/${config.authRegion}`
  return (iss) =>
    iss === own ||
    (typeof iss === 'string' &&
      iss.startsWith('http://localhost:') &&
      iss.endsWith(tail) &&
      /^\d{1,5}$/.test(iss.slice('http://localhost:'.length, -tail.length)))
}
