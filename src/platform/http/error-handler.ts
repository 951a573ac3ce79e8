import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import { AppError, lookupError, ValidationErrors, type ErrorCode } from '../kit/errors.js'
import { registerRouteIndex } from './route-index.js'
import type { ErrorBody } from './schemas.js'
import { MORE_PROBLEMS } from './validator.js'

type Item = ErrorBody['errors'][number]

/** SQLSTATEs of class 22 caused by a value, not by the service: 22003 numeric out of range, 22021/22P05 bad character. */
const INPUT_SQLSTATES = new Set(['22003', '22021', '22P05'])
/** pg-pool's error when no connection frees up within connectionTimeoutMillis (it has no code). */
const PG_POOL_TIMEOUT = 'timeout exceeded when trying to connect'

/** The ONE mapping from thrown errors to HTTP responses (CONTRACT §1). */
export function registerErrorHandling(app: FastifyInstance): void {
  app.setErrorHandler((error: FastifyError | Error, request, reply) => {
    const { status, items, headers } = toResponse(error, request)
    if (status >= 500) request.log.error({ err: error }, 'request failed')
    else
      request.log.info(
        {
          err: {
            code: (error as FastifyError).code,
            message: error.message,
            detail: error instanceof AppError ? error.options.detail : undefined,
          },
        },
        'request refused',
      )
    if (headers) void reply.headers(headers)
    return reply.code(status).type('application/json; charset=utf-8').send({ errors: items })
  })
  const routes = registerRouteIndex(app)
  app.setNotFoundHandler((request, reply) => {
    const path = request.url.split('?')[0]!
    // A path that exists under other methods is a 405 naming them (RFC 9110 §15.5.6), not a 404.
    const allowed = routes.methodsOf(path)
    if (allowed.length > 0) {
      return reply
        .code(405)
        .header('allow', allowed.join(', '))
        .send({
          errors: [
            item('METHOD_NOT_ALLOWED', request, {
              description: `${request.method} is not allowed on ${path}; use ${allowed.join(', ')}.`,
            }),
          ],
        })
    }
    return reply
      .code(404)
      .send({ errors: [item('ROUTE_NOT_FOUND', request, { description: `No endpoint ${request.method} ${path}.` })] })
  })
}

function toResponse(
  error: FastifyError | Error,
  request: FastifyRequest,
): { status: number; items: Item[]; headers?: Record<string, string> } {
  if (error instanceof AppError) {
    return { status: error.status, items: [item(error.code, request, error.options)], headers: error.options.headers }
  }
  if (error instanceof ValidationErrors) {
    return {
      status: 400,
      items: error.items.map((i) =>
        item(i.code ?? 'VALIDATION_FAILED', request, { field: i.field, description: i.description }),
      ),
    }
  }
  const fe = error as FastifyError
  if (fe.validation) {
    return { status: 400, items: fe.validation.map((v) => validationItem(v, fe.validationContext, request)) }
  }
  switch (fe.code) {
    case 'FST_ERR_CTP_INVALID_JSON_BODY':
      return { status: 400, items: [item('MALFORMED_BODY', request)] }
    case 'FST_ERR_CTP_EMPTY_JSON_BODY':
      return {
        status: 400,
        items: [item('MALFORMED_BODY', request, { description: 'The request body is empty; send a JSON document.' })],
      }
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      return {
        status: 415,
        items: [
          item('UNSUPPORTED_MEDIA_TYPE', request, {
            description: `Unsupported content type ${JSON.stringify(request.headers['content-type'] ?? '')}; send application/json.`,
          }),
        ],
      }
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return { status: 413, items: [item('BODY_TOO_LARGE', request)] }
  }
  const sqlState = (error as { code?: unknown }).code
  // A statement past DB_STATEMENT_TIMEOUT_MS (57014, query_canceled), or no pool connection free
  // within it: the database is busy, not broken (issue 14.2).
  if (sqlState === '57014' || error.message === PG_POOL_TIMEOUT) {
    return { status: 503, items: [item('DATABASE_TIMEOUT', request)], headers: { 'retry-after': '1' } }
  }
  // Values PostgreSQL cannot hold (a character outside the encoding, a number past its type) are the
  // input's fault: the validators catch the known ones, this keeps any other from becoming a 500.
  if (typeof sqlState === 'string' && INPUT_SQLSTATES.has(sqlState)) {
    return {
      status: 400,
      items: [
        item('VALIDATION_FAILED', request, {
          description: 'A value in the request cannot be stored (unsupported character or number out of range).',
        }),
      ],
    }
  }
  // Fastify's own 4xx (bad URL, invalid header…) carry safe messages.
  if (typeof fe.statusCode === 'number' && fe.statusCode >= 400 && fe.statusCode < 500) {
    const code: ErrorCode =
      fe.statusCode === 413 ? 'BODY_TOO_LARGE' : fe.statusCode === 415 ? 'UNSUPPORTED_MEDIA_TYPE' : 'VALIDATION_FAILED'
    return { status: lookupError(code).status, items: [item(code, request, { description: fe.message })] }
  }
  return { status: 500, items: [item('INTERNAL', request)] }
}

interface AjvIssue {
  instancePath: string
  keyword: string
  message?: string
  params: Record<string, unknown>
}

function validationItem(v: AjvIssue, context: string | undefined, request: FastifyRequest): Item {
  // The validator's closing item of a capped list: no field, its own words.
  if (v.keyword === MORE_PROBLEMS) return item('VALIDATION_FAILED', request, { description: v.message })
  const segments = v.instancePath
    .split('/')
    .filter(Boolean)
    .map((s) => s.replace(/~1/g, '/').replace(/~0/g, '~'))
  if (v.keyword === 'required' && typeof v.params.missingProperty === 'string') segments.push(v.params.missingProperty)
  if (v.keyword === 'additionalProperties' && typeof v.params.additionalProperty === 'string')
    segments.push(v.params.additionalProperty)
  // Array positions in brackets (`images[0].tempURL`), as the services name fields.
  const field =
    segments.reduce((path, seg) => (/^\d+$/.test(seg) ? `${path}[${seg}]` : path ? `${path}.${seg}` : seg), '') ||
    (context === 'body' ? 'body' : (context ?? 'request'))
  let description: string
  switch (v.keyword) {
    case 'required':
      description = `${field} is required`
      break
    case 'additionalProperties':
      description = `${field} is not a known field`
      break
    case 'enum':
      description = `${field} must be one of ${(v.params.allowedValues as unknown[]).join(', ')}`
      break
    default:
      description = `${field} ${v.message ?? 'is invalid'}`
  }
  return item('VALIDATION_FAILED', request, { field, description })
}

function item(
  code: string,
  request: FastifyRequest,
  opts: { field?: string; description?: string; additionalInfo?: string } = {},
): Item {
  return errorItem(code, request.id, opts)
}

/** One item of the error model: all six fields, an empty string where nothing applies (CONTRACT §1). */
export function errorItem(
  code: string,
  correlationID: string,
  opts: { field?: string; description?: string; additionalInfo?: string } = {},
): Item {
  const entry = lookupError(code)
  return {
    errorCode: entry.errorCode,
    errorDescription: opts.description ?? entry.message,
    additionalCode: entry.additionalCode,
    additionalInfo: opts.additionalInfo ?? '',
    additionalParameters: opts.field ?? '',
    correlationID,
  }
}

export function sendError(
  reply: FastifyReply,
  request: FastifyRequest,
  code: ErrorCode,
  opts: { description?: string; field?: string } = {},
) {
  return reply.code(lookupError(code).status).send({ errors: [item(code, request, opts)] })
}
