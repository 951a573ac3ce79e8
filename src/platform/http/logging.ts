import { REDACT_PATHS } from '../kit/process-log.js'
import type { FastifyBaseLogger, FastifyRequest } from 'fastify'
import type { Bindings, ChildLoggerOptions } from 'pino'

/**
 * What a request log line may say about a request: its method, its route, the ids in its path,
 * and which query parameters it had, never their values. Query values carry recipient names
 * (search terms, decoded labels) and sometimes credentials (`?access_token=`); path parameters
 * that are not ids can hold a tracking number or a name. A request that matched no route has
 * only its method logged: its path is whatever the caller typed.
 */
export function requestLogView(request: FastifyRequest): Record<string, unknown> {
  const route = request.routeOptions?.url
  return {
    method: request.method,
    url: route === undefined ? '(no route)' : `${pathOf(route, request.params)}${queryKeysOf(request.url)}`,
    remoteAddress: request.ip,
  }
}

/** Values of parameters named like an id (`packageId`, `webHookConfigID`, `id`) are kept; others become `{name}`. */
function pathOf(route: string, params: unknown): string {
  const values = (params ?? {}) as Record<string, unknown>
  return route.replace(/:([A-Za-z0-9_]+)|\*/g, (whole, name: string | undefined) => {
    if (name === undefined) return '*'
    const value = values[name]
    return /(?:^|[a-z])(?:id|Id|ID)$/.test(name) && typeof value === 'string' && /^[A-Za-z0-9_.-]{1,64}$/.test(value)
      ? value
      : `{${name}}`
  })
}

function queryKeysOf(url: string): string {
  const q = url.indexOf('?')
  if (q < 0) return ''
  const keys = new URLSearchParams(url.slice(q + 1)).keys()
  return `?${[...new Set(keys)].map((k) => `${encodeURIComponent(k.slice(0, 64))}=[redacted]`).join('&')}`
}

/** Fastify logger options with the serializers and redaction above; `false` stays silent. */
export function loggerOptions(logger: boolean | Record<string, unknown>): boolean | Record<string, unknown> {
  if (logger === false) return false
  const base = logger === true ? {} : logger
  return {
    ...base,
    serializers: { ...(base.serializers as object | undefined), req: requestLogView },
    redact: { paths: REDACT_PATHS, censor: '[redacted]' },
  }
}

type Level = 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace'
const LEVELS: readonly Level[] = ['fatal', 'error', 'warn', 'info', 'debug', 'trace']

/**
 * Fastify's per-request logger, made only when a line is written at an enabled level: pino's
 * `child()` (its bindings serialized and redacted) cost every request 2% of an authenticated GET,
 * for lines that at the usual `warn` level are never written. The lines, their bindings
 * (correlationID) and their redaction are pino's own, as before.
 */
class LazyRequestLogger {
  made: FastifyBaseLogger | undefined

  constructor(
    readonly parent: FastifyBaseLogger,
    readonly bindings: Bindings,
    readonly opts: ChildLoggerOptions,
  ) {}

  logger(): FastifyBaseLogger {
    return (this.made ??= this.parent.child(this.bindings, this.opts))
  }

  get level(): string {
    return (this.made ?? this.parent).level
  }

  set level(level: string) {
    this.logger().level = level
  }

  child(bindings: Bindings, opts?: ChildLoggerOptions): FastifyBaseLogger {
    return this.logger().child(bindings, opts)
  }

  silent(): void {}
}
for (const level of LEVELS)
  (LazyRequestLogger.prototype as unknown as Record<Level, (this: LazyRequestLogger, ...args: unknown[]) => void>)[
    level
  ] = function (...args: unknown[]) {
    const parent = this.parent as FastifyBaseLogger & { isLevelEnabled?: (level: string) => boolean }
    if (parent.isLevelEnabled && !parent.isLevelEnabled(level)) return
    const write: (...a: unknown[]) => void = this.logger()[level].bind(this.logger())
    write(...args)
  }

/** Fastify's `childLoggerFactory`: each request's logger, made on its first enabled line. */
export function lazyChildLogger(
  logger: FastifyBaseLogger,
  bindings: Bindings,
  opts: ChildLoggerOptions,
): FastifyBaseLogger {
  return new LazyRequestLogger(logger, bindings, opts) as unknown as FastifyBaseLogger
}
