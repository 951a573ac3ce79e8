/**
 * The one error catalogue. Each code is API: its HTTP status, `errorCode` and `additionalCode`
 * never change once released. Domains throw `new AppError('CODE', { detail })`; `detail` is logged,
 * never sent. Only http/error-handler.ts turns these into responses.
 */
export type ErrorKind = 'validation_error' | 'not_found' | 'already_exists' | 'internal_error'

interface CatalogueEntry {
  status: number
  errorCode: ErrorKind
  additionalCode: string
  message: string
}

export const ERROR_CATALOGUE = {
  VALIDATION_FAILED: {
    status: 400,
    errorCode: 'validation_error',
    additionalCode: 'GEN-4000',
    message: 'The request is invalid.',
  },
  MALFORMED_BODY: {
    status: 400,
    errorCode: 'validation_error',
    additionalCode: 'GEN-4001',
    message: 'The request body is not well-formed JSON.',
  },
  UNSUPPORTED_MEDIA_TYPE: {
    status: 415,
    errorCode: 'validation_error',
    additionalCode: 'GEN-4150',
    message: 'Unsupported content type; send application/json.',
  },
  BODY_TOO_LARGE: {
    status: 413,
    errorCode: 'validation_error',
    additionalCode: 'GEN-4130',
    message: 'The request body is too large.',
  },
  ROUTE_NOT_FOUND: { status: 404, errorCode: 'not_found', additionalCode: 'GEN-4040', message: 'No such endpoint.' },
  METHOD_NOT_ALLOWED: {
    status: 405,
    errorCode: 'validation_error',
    additionalCode: 'GEN-4050',
    message: 'Method not allowed on this endpoint.',
  },
  BAD_URL: {
    status: 400,
    errorCode: 'validation_error',
    additionalCode: 'GEN-4002',
    message: 'The URL is not validly percent-encoded.',
  },
  PATH_TOO_LONG: {
    status: 414,
    errorCode: 'validation_error',
    additionalCode: 'GEN-4140',
    message: 'A path parameter is longer than 100 characters.',
  },
  MALFORMED_REQUEST: {
    status: 400,
    errorCode: 'validation_error',
    additionalCode: 'GEN-4003',
    message: 'The HTTP request is malformed.',
  },
  REQUEST_TIMEOUT: {
    status: 408,
    errorCode: 'validation_error',
    additionalCode: 'GEN-4080',
    message: 'The request was not received in time.',
  },
  HEADERS_TOO_LARGE: {
    status: 431,
    errorCode: 'validation_error',
    additionalCode: 'GEN-4310',
    message: 'The request headers are too large.',
  },
  RATE_LIMITED: {
    status: 429,
    errorCode: 'validation_error',
    additionalCode: 'GEN-4290',
    message: 'Too many requests; retry later.',
  },
  TENANT_BUSY: {
    status: 429,
    errorCode: 'validation_error',
    additionalCode: 'GEN-4291',
    message: 'Too many concurrent expensive operations for this subscription; retry later.',
  },
  STALE_VERSION: {
    status: 412,
    errorCode: 'validation_error',
    additionalCode: 'GEN-4120',
    message: 'The resource changed since the version given in If-Match.',
  },
  IDEMPOTENCY_KEY_REUSED: {
    status: 409,
    errorCode: 'validation_error',
    additionalCode: 'GEN-4091',
    message: 'This Idempotency-Key was already used with a different request.',
  },
  IDEMPOTENCY_KEY_IN_PROGRESS: {
    status: 409,
    errorCode: 'validation_error',
    additionalCode: 'GEN-4092',
    message: 'A request with this Idempotency-Key is still being processed.',
  },
  INTERNAL: {
    status: 500,
    errorCode: 'internal_error',
    additionalCode: 'GEN-5000',
    message: 'An unexpected error occurred.',
  },
  SERVICE_UNAVAILABLE: {
    status: 503,
    errorCode: 'internal_error',
    additionalCode: 'GEN-5030',
    message: 'The service is not ready.',
  },
  SERVICE_BUSY: {
    status: 503,
    errorCode: 'internal_error',
    additionalCode: 'GEN-5032',
    message: 'The service is busy with heavy requests; retry later.',
  },
  DATABASE_TIMEOUT: {
    status: 503,
    errorCode: 'internal_error',
    additionalCode: 'GEN-5031',
    message:
      'The request took too long in the database and was stopped; retry later, or narrow it (a shorter search, a date range).',
  },
} as const satisfies Record<string, CatalogueEntry>

export type ErrorCode = keyof typeof ERROR_CATALOGUE

const extraEntries = new Map<string, CatalogueEntry>()

/** Domains add their codes at import time; additional codes must stay unique across the service. */
export function registerErrors<const T extends Record<string, CatalogueEntry>>(entries: T): { [K in keyof T]: K } {
  const keys = {} as { [K in keyof T]: K }
  for (const [code, entry] of Object.entries(entries)) {
    if (code in ERROR_CATALOGUE || extraEntries.has(code)) throw new Error(`error code ${code} registered twice`)
    for (const e of allErrorEntries()) {
      if (e.entry.additionalCode === entry.additionalCode)
        throw new Error(`additionalCode ${entry.additionalCode} registered twice`)
    }
    extraEntries.set(code, entry)
    ;(keys as Record<string, string>)[code] = code
  }
  return keys
}

export function lookupError(code: string): CatalogueEntry {
  return (ERROR_CATALOGUE as Record<string, CatalogueEntry>)[code] ?? extraEntries.get(code) ?? ERROR_CATALOGUE.INTERNAL
}

export function allErrorEntries(): Array<{ code: string; entry: CatalogueEntry }> {
  return [
    ...Object.entries(ERROR_CATALOGUE).map(([code, entry]) => ({ code, entry })),
    ...[...extraEntries].map(([code, entry]) => ({ code, entry })),
  ]
}

export interface AppErrorOptions {
  /** Logged, never sent. */
  detail?: unknown
  /** The field the client must fix (`additionalParameters`). */
  field?: string
  /** A public description replacing the catalogue message, for messages that name the value at fault. */
  description?: string
  additionalInfo?: string
  /** Extra response headers (Retry-After). */
  headers?: Record<string, string>
}

export class AppError extends Error {
  readonly code: string
  readonly options: AppErrorOptions

  constructor(code: ErrorCode | (string & {}), options: AppErrorOptions = {}) {
    super(options.description ?? lookupError(code).message)
    this.name = 'AppError'
    this.code = code
    this.options = options
  }

  get status(): number {
    return lookupError(this.code).status
  }
}

/** Several field problems reported at once, each its own `errors[]` item. */
export class ValidationErrors extends Error {
  constructor(readonly items: Array<{ field: string; description: string; code?: string }>) {
    super(items.map((i) => `${i.field}: ${i.description}`).join('; '))
    this.name = 'ValidationErrors'
  }
}

export function invalid(field: string, description: string): AppError {
  return new AppError('VALIDATION_FAILED', { field, description })
}
