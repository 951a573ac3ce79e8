import { int, section, text } from './define.js'
import type { Env } from './index.js'

const prefix = (value: string, description: string) =>
  text({ pattern: '^(/[A-Za-z0-9._~-]+)*/?$', default: value, description: `${description}; / for the root` })

/** Where and how the process listens: address, mounts, socket timeouts, shutdown. */
export const serverSettings = section({
  title: 'HTTP',
  keys: {
    PORT: int({ minimum: 0, maximum: 65535, default: 8080, description: 'TCP port to listen on (0: any free port)' }),
    HOST: text({
      minLength: 1,
      default: '127.0.0.1',
      description: 'address to listen on; 0.0.0.0 to accept connections from other machines',
    }),
    TRUST_PROXY: text({
      default: 'false',
      pattern: '^(true|false|\\d{1,2}|[0-9a-fA-F:.]+(/\\d{1,3})?(,[0-9a-fA-F:.]+(/\\d{1,3})?)*)$',
      description:
        'whose X-Forwarded-For to believe (rate and guessing limits key on the client address): false, true, a hop count, or comma-separated proxy addresses/CIDRs',
    }),
    RECEIVING_PREFIX: prefix('/', 'mount of the receiving API (packages, locations, webhooks)'),
    AUTH_PREFIX: prefix('/auth', 'mount of the token endpoint; part of the token issuer'),
    TRACKING_WEBHOOKS_PREFIX: prefix('/webhooks/tracking', "mount of the carriers' tracking webhooks"),
    LOCKER_WEBHOOKS_PREFIX: prefix('/webhooks/locker', 'mount of the locker webhooks'),
    BODY_LIMIT_BYTES: int({
      minimum: 1024,
      maximum: 104_857_600,
      default: 1_048_576,
      description: 'largest JSON request body (413 above it); image uploads have IMAGE_MAX_BYTES',
    }),
    HTTP_HEADERS_TIMEOUT_MS: int({
      minimum: 100,
      maximum: 600_000,
      default: 10_000,
      description: "time to receive a request's headers; slow clients are cut off",
    }),
    HTTP_REQUEST_TIMEOUT_MS: int({
      minimum: 100,
      maximum: 3_600_000,
      default: 60_000,
      description: 'time to receive a whole request, body included, 408 after it (>= HTTP_HEADERS_TIMEOUT_MS)',
    }),
    HTTP_IDLE_TIMEOUT_MS: int({
      minimum: 100,
      maximum: 3_600_000,
      default: 60_000,
      description: 'a socket with no traffic either way for this long is closed',
    }),
    HTTP_KEEP_ALIVE_TIMEOUT_MS: int({
      minimum: 100,
      maximum: 3_600_000,
      default: 65_000,
      description:
        'an idle kept-alive connection is closed after this; keep it above the idle timeout of a proxy in front (60 s on AWS ALB)',
    }),
    SHUTDOWN_GRACE_SECONDS: int({
      minimum: 1,
      maximum: 300,
      default: 25,
      description: 'on SIGTERM or SIGINT, the time in-flight requests get to finish before the process exits',
    }),
  },
})

export interface ServerConfig {
  port: number
  host: string
  /** Fastify's trustProxy: which peers may tell us the client address through X-Forwarded-For. */
  trustProxy: boolean | number | string
  prefixes: { receiving: string; auth: string; trackingWebhooks: string; lockerWebhooks: string }
  bodyLimitBytes: number
  /** Socket timeouts (ms): slow clients cannot hold sockets. */
  http: { headersTimeoutMs: number; requestTimeoutMs: number; idleTimeoutMs: number; keepAliveTimeoutMs: number }
  shutdownGraceSeconds: number
}

/** '/' and '' both mean the root; otherwise no trailing slash. */
const normalizePrefix = (p: string): string => p.replace(/\/+$/, '')

/** Read before validation too (for the cross-key checks): a malformed prefix is undefined. */
function prefixesOf(env: Env): Partial<ServerConfig['prefixes']> {
  const of = (v: unknown) => (typeof v === 'string' ? normalizePrefix(v) : undefined)
  return {
    receiving: of(env.RECEIVING_PREFIX),
    auth: of(env.AUTH_PREFIX),
    trackingWebhooks: of(env.TRACKING_WEBHOOKS_PREFIX),
    lockerWebhooks: of(env.LOCKER_WEBHOOKS_PREFIX),
  }
}

export function serverConfig(env: Env): ServerConfig {
  return {
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
    prefixes: Object.freeze(prefixesOf(env) as ServerConfig['prefixes']),
    bodyLimitBytes: env.BODY_LIMIT_BYTES,
    http: {
      headersTimeoutMs: env.HTTP_HEADERS_TIMEOUT_MS,
      requestTimeoutMs: env.HTTP_REQUEST_TIMEOUT_MS,
      idleTimeoutMs: env.HTTP_IDLE_TIMEOUT_MS,
      keepAliveTimeoutMs: env.HTTP_KEEP_ALIVE_TIMEOUT_MS,
    },
    shutdownGraceSeconds: env.SHUTDOWN_GRACE_SECONDS,
  }
}

export function serverProblems(env: Env): string[] {
  const problems: string[] = []
  const prefixes = prefixesOf(env)
  if (Object.values(prefixes).every((p) => p !== undefined)) {
    const mounted = [prefixes.auth, prefixes.trackingWebhooks, prefixes.lockerWebhooks]
    if (new Set(mounted).size !== mounted.length || (mounted.includes(prefixes.receiving) && prefixes.receiving !== ''))
      problems.push('*_PREFIX: each interface needs its own mount prefix')
    if (mounted.includes(''))
      problems.push('AUTH_PREFIX / *_WEBHOOKS_PREFIX: only the receiving interface may be mounted at /')
  }
  if (env.HTTP_HEADERS_TIMEOUT_MS > env.HTTP_REQUEST_TIMEOUT_MS)
    problems.push('HTTP_HEADERS_TIMEOUT_MS: must not exceed HTTP_REQUEST_TIMEOUT_MS')
  return problems
}
