/**
 * The facts every operation of the OpenAPI document shares, applied in one place to the document
 * @fastify/swagger generates from the route schemas (its `transformObject`), so that routes declare
 * only what is theirs and the document still says everything a client meets on the wire:
 * operationId, security, the error responses the framework and the hooks can give, and the headers
 * the service reads and writes outside the route schemas. It also states what the generator gets
 * wrong for clients: defaulted parameters and fields are optional, unions of constants are enums.
 */

import { componentRefs, enumsFromConstants, optionalDefaults } from './schema-transforms.js'

type Json = Record<string, unknown>
interface Operation extends Json {
  operationId?: string
  security?: Array<Record<string, string[]>>
  parameters?: Array<{ name: string; in: string; required?: boolean; schema?: Json; description?: string }>
  requestBody?: { required?: boolean; content: Record<string, { schema?: Json }> }
  responses: Record<
    string,
    Json & { description?: string; headers?: Record<string, Json>; content?: Record<string, { schema?: Json }> }
  >
}

export interface RouteFacts {
  /** The route takes `Idempotency-Key` (src/platform/idempotency/hooks.ts marks it). */
  idempotent: boolean
}

const METHODS = ['get', 'put', 'post', 'delete', 'patch', 'head', 'options'] as const
const ERROR_BODY = { $ref: '#/components/schemas/ErrorBody' }
const UNAUTHORIZED = { $ref: '#/components/schemas/Unauthorized' }

const header = (description: string, schema: Json, required = false): Json => ({ description, required, schema })
const CORRELATION = header(
  'The request id: yours when you sent a safe `X-Correlation-ID`, else one we made. Also `correlationID` of every error item.',
  { type: 'string' },
  true,
)
const RATE_LIMIT_HEADERS: Record<string, Json> = {
  'RateLimit-Limit': header('Requests allowed in the current window (when a rate limit applies).', { type: 'integer' }),
  'RateLimit-Remaining': header(
    'Requests left in the current window. A deployment of several processes counts in each process and adds the counts to the shared window in the background, every 250 ms by default (`RATE_LIMIT_SYNC_MS`): the figure may miss the requests the other processes served within the last interval, and past the limit a subscription can be admitted at most the requests it sent to the other processes within one interval plus a round trip to the database (one process: exact).',
    { type: 'integer' },
  ),
  'RateLimit-Reset': header('Seconds until the window resets.', { type: 'integer' }),
}

/** What a route reads or writes outside its schema, by the code that does it. */
const ROUTE_HEADERS: Array<{
  methods: string[]
  path: RegExp
  request?: Operation['parameters']
  response?: Record<string, Json>
  produces?: string[]
  alsoProduces?: Record<string, Json>
  optionalBody?: boolean
}> = [
  // search/api/routes.ts: `Accept: text/csv` streams the rows as CSV (content negotiation, so no Accept parameter).
  {
    methods: ['post'],
    path: /\/api\/v1\/packages\/search$/,
    response: { 'Content-Disposition': header('With CSV: `attachment; filename="packages.csv"`.', { type: 'string' }) },
    alsoProduces: {
      'text/csv': {
        schema: { type: 'string', description: 'RFC 4180 CSV (CRLF), the labels of the mapping as header row.' },
      },
    },
  },
  // contacts/api/roster-routes.ts: the roster export is a CSV file.
  {
    methods: ['get'],
    path: /\/api\/v1\/contacts\/export$/,
    response: { 'Content-Disposition': header('`attachment; filename="contacts.csv"`.', { type: 'string' }) },
    produces: ['text/csv'],
  },
  // access/api/token.ts: an empty body is a valid token request (CONTRACT §2).
  { methods: ['post'], path: /\/api\/v1\/token$/, optionalBody: true },
  // packages/api/routes.ts: archive without a body archives (`archived` defaults to true).
  { methods: ['patch'], path: /\/api\/v1\/packages\/\{packageId\}\/archive$/, optionalBody: true },
  // packages/api/routes.ts actorOf(): the clerk recorded on package writes.
  {
    methods: ['post', 'put', 'patch'],
    path: /\/api\/v1\/packages(\/\{packageId\}(\/archive)?)?$/,
    request: [
      {
        name: 'X-User-Name',
        in: 'header',
        required: false,
        description: 'The clerk acting (userName, receiveClerk, deliveryClerk); default the API client id.',
        schema: { type: 'string', minLength: 1, maxLength: 100 },
      },
    ],
  },
  // packages/api/routes.ts ifMatchOf(): a conditional update.
  {
    methods: ['put'],
    path: /\/api\/v1\/packages\/\{packageId\}$/,
    request: [
      {
        name: 'If-Match',
        in: 'header',
        required: false,
        description:
          'The package `version` the update was computed from (`3` or `"3"`); 412 when the package changed since.',
        schema: { type: 'string' },
      },
    ],
  },
  // images/api/routes.ts serve(): the stored bytes with their hash.
  {
    methods: ['get'],
    path: /\/images\/\{imageId\}$/,
    response: { ETag: header('The sha256 of the image bytes.', { type: 'string' }, true) },
    produces: ['image/png', 'image/jpeg', 'image/gif', 'image/webp', 'image/tiff', 'image/bmp'],
  },
]

/** Headers every response or many share, declared once under components.headers and referenced. */
const SHARED_HEADERS: Record<string, Json> = {
  'X-Correlation-ID': CORRELATION,
  ...RATE_LIMIT_HEADERS,
  'Retry-After': header('Seconds to wait before retrying.', { type: 'integer', minimum: 0 }, true),
}
const ref = (name: string): Json => ({ $ref: `#/components/headers/${name}` })

export function completeDocument(
  doc: Json,
  opts: {
    serverPath: string
    routeFacts: (method: string, path: string) => RouteFacts | undefined
    /** Component schemas no route names (a webhook's data), by component name. */
    extraSchemas?: Record<string, unknown>
  },
): Json {
  const components = (doc.components ??= {}) as Json
  components.headers = { ...(components.headers as Json | undefined), ...SHARED_HEADERS }
  const commonResponses = (components.responses ??= {}) as Record<string, Json>
  const schemas = (components.schemas ??= {}) as Json
  for (const [name, schema] of Object.entries(opts.extraSchemas ?? {}))
    schemas[name] = componentRefs(JSON.parse(JSON.stringify(schema)) as Json)
  doc.servers = [
    { url: opts.serverPath || '/', description: 'This server (relative to the address the document was read from).' },
  ]
  const paths = (doc.paths ?? {}) as Record<string, Record<string, Operation>>
  const usedIds = new Set<string>()
  for (const [path, item] of Object.entries(paths)) {
    for (const method of METHODS) {
      const op = item[method]
      if (!op) continue
      completeOperation(op, method, path, opts.routeFacts(method, path), commonResponses)
      if (usedIds.has(op.operationId!)) throw new Error(`operationId ${op.operationId} used twice`)
      usedIds.add(op.operationId!)
    }
  }
  return enumsFromConstants(doc) as Json
}

function completeOperation(
  op: Operation,
  method: string,
  path: string,
  facts: RouteFacts | undefined,
  commonResponses: Record<string, Json>,
): void {
  op.operationId ??= operationIdOf(method, path)
  // Public operations say so: an empty list overrides any document-wide requirement.
  op.security ??= []
  const bearer = op.security.some((s) => 'bearerAuth' in s)
  const hasPathParams = path.includes('{')
  // A body can be sent to any POST/PUT/PATCH, schema or not: its size and content type are checked before the route.
  const takesBody = op.requestBody !== undefined || ['post', 'put', 'patch'].includes(method)

  op.parameters ??= []
  for (const p of op.parameters) {
    // A parameter with a default is never needed (the validator fills it in).
    if (p.in !== 'path' && p.schema && 'default' in p.schema) p.required = false
  }
  addParameter(op, {
    name: 'X-Correlation-ID',
    in: 'header',
    required: false,
    description: 'Your id for this request (at most 128 of `A-Za-z0-9._:-`), echoed back and in every log line.',
    schema: { type: 'string', pattern: '^[A-Za-z0-9._:-]{1,128}$' },
  })
  if (facts?.idempotent && method === 'post') {
    addParameter(op, {
      name: 'Idempotency-Key',
      in: 'header',
      required: false,
      description:
        'Makes a retry safe: the same key and body within 24 hours returns the first response (`Idempotent-Replayed: true`); another body is a 409.',
      schema: { type: 'string', minLength: 1, maxLength: 255 },
    })
  }
  const extra = ROUTE_HEADERS.filter((r) => r.methods.includes(method) && r.path.test(path))
  for (const r of extra) for (const p of r.request ?? []) addParameter(op, p)

  if (op.requestBody) {
    for (const media of Object.values(op.requestBody.content)) if (media.schema) optionalDefaults(media.schema)
    if (extra.some((r) => r.optionalBody)) op.requestBody.required = false
  }

  const add = (status: number, schema: Json, description: string) => {
    if (op.responses[status]) return
    const name = `Error${status}`
    commonResponses[name] ??= {
      description,
      headers: {
        'X-Correlation-ID': ref('X-Correlation-ID'),
        ...(status === 429 ? { 'Retry-After': ref('Retry-After'), ...rateLimitRefs() } : {}),
      },
      content: { 'application/json': { schema } },
    }
    op.responses[status] = { $ref: `#/components/responses/${name}` }
  }
  add(
    400,
    ERROR_BODY,
    'Invalid request: a parameter or field (named in `additionalParameters`), or a URL that is not valid percent-encoding.',
  )
  if (bearer) {
    add(
      401,
      UNAUTHORIZED,
      'Missing, invalid or expired bearer token (RFC 6750): `{message}` and a `WWW-Authenticate` challenge.',
    )
    add(403, UNAUTHORIZED, 'The token lacks the psapi scope.')
  }
  if (hasPathParams) {
    add(404, ERROR_BODY, 'No such resource in this subscription.')
    add(414, ERROR_BODY, 'A path parameter is longer than 100 characters.')
  }
  if (facts?.idempotent && method === 'post')
    add(
      409,
      ERROR_BODY,
      'A conflict: the Idempotency-Key was used with another request or its first request is still running, or a conflict of the operation.',
    )
  if (takesBody) {
    add(413, ERROR_BODY, 'The request body is over the limit.')
    add(415, ERROR_BODY, 'Unsupported content type.')
  }
  if (bearer) add(429, ERROR_BODY, 'Too many requests: retry after `Retry-After` seconds.')
  add(500, ERROR_BODY, 'Unexpected error; the body never says why.')
  add(503, ERROR_BODY, 'The service is shutting down (or not ready); retry.')

  for (const [status, response] of Object.entries(op.responses)) {
    if ('$ref' in response) continue
    response.description ||= status
    response.headers = { ...response.headers, 'X-Correlation-ID': ref('X-Correlation-ID') }
    if (bearer && (status.startsWith('2') || status === '429')) Object.assign(response.headers, rateLimitRefs())
    if (status === '429') response.headers['Retry-After'] = ref('Retry-After')
    if (facts?.idempotent && method === 'post')
      response.headers['Idempotent-Replayed'] = header(
        '`true` when this is the stored response of an earlier request with the same Idempotency-Key.',
        { type: 'string', enum: ['true'] },
      )
    for (const r of extra) {
      if (!status.startsWith('2')) continue
      Object.assign(response.headers, r.response)
      if (r.alsoProduces && response.content) Object.assign(response.content, r.alsoProduces)
      if (r.produces && response.content) {
        const schema = Object.values(response.content)[0]?.schema ?? { type: 'string', format: 'binary' }
        response.content = Object.fromEntries(r.produces.map((m) => [m, { schema }]))
      }
    }
  }
}

const rateLimitRefs = () => Object.fromEntries(Object.keys(RATE_LIMIT_HEADERS).map((name) => [name, ref(name)]))

function addParameter(op: Operation, p: NonNullable<Operation['parameters']>[number]): void {
  if (!op.parameters!.some((q) => q.in === p.in && q.name.toLowerCase() === p.name.toLowerCase()))
    op.parameters!.push(p)
}

/** `GET /api/v1/packages/{packageId}` → `getPackagesByPackageId`; the mount prefix is part of it. */
export function operationIdOf(method: string, path: string): string {
  const words = path
    .split('/')
    .filter((s) => s && s !== 'api' && !/^v\d+$/.test(s))
    .flatMap((s) => (s.startsWith('{') ? ['by', s.slice(1, -1)] : s.split(/[^A-Za-z0-9]+/)))
    .filter(Boolean)
  return [method, ...words].map((w, i) => (i === 0 ? w : w[0]!.toUpperCase() + w.slice(1))).join('')
}
