import fc from 'fast-check'
import type { InjectOptions, LightMyRequestResponse } from 'fastify'
import { arbitraryOf, type KnownValues, type Schema } from './schema-arbitrary.js'

/** One operation of the OpenAPI document. */
export interface Operation {
  method: string
  path: string
  params: Array<{ in: 'path' | 'query' | 'header'; name: string; required: boolean; schema: Schema }>
  body?: Schema
  basicAuth: boolean
}

export interface FuzzRequest {
  op: Operation
  /** What was done to the request, for the report of a failure. */
  mutation: string
  inject: InjectOptions
}

export interface Credentials {
  bearer: string
  basic: string
}

/** Every operation of the document (the docs' own routes have no operation in it). */
export function operationsOf(doc: { paths: Record<string, Record<string, Record<string, unknown>>> }): Operation[] {
  const out: Operation[] = []
  for (const [path, methods] of Object.entries(doc.paths)) {
    for (const [method, o] of Object.entries(methods)) {
      const params = ((o.parameters ?? []) as Array<Record<string, unknown>>).map((p) => ({
        in: p.in as 'path',
        name: p.name as string,
        required: p.required === true,
        schema: (p.schema ?? {}) as Schema,
      }))
      const content = (o.requestBody as { content?: Record<string, { schema?: Schema }> } | undefined)?.content
      const security = (o.security ?? []) as Array<Record<string, unknown>>
      out.push({
        method: method.toUpperCase(),
        path,
        params,
        body: content?.['application/json']?.schema,
        basicAuth: security.some((s) => 'basicAuth' in s) && !security.some((s) => 'bearerAuth' in s),
      })
    }
  }
  return out
}

const deep = (n: number, open: string, close: string, inner = '1') => open.repeat(n) + inner + close.repeat(n)

/** Values no schema asks for: wrong types, huge and hostile strings, numbers at the edges. */
export const hostile: fc.Arbitrary<unknown> = fc.oneof(
  fc.constantFrom(
    null,
    true,
    false,
    0,
    -1,
    -0,
    1.5,
    2 ** 31,
    -(2 ** 31) - 1,
    2 ** 53 + 1,
    1e21,
    1e308,
    -1e308,
    Number.MAX_SAFE_INTEGER,
  ),
  fc.constantFrom(
    '',
    ' ',
    '\u0000',
    'a\u0000b',
    '\ud800',
    '\udfff',
    'x\udbff',
    '\u0007\u001b[31m',
    '\r\n',
    '\u202e',
    '\ufeff',
    '%00',
    '%',
    '../../etc/passwd',
    "'; drop table packages; --",
    '${7*7}',
    '{{7*7}}',
    '__proto__',
    'constructor',
    'NaN',
    'Infinity',
    '1e999',
    '-0',
    '0x10',
    'true',
    'null',
    '2024-02-30T25:61:00Z',
    '-000001-01-01T00:00:00Z',
    '9999-12-31T23:59:59.999Z',
    '\u{1F4E6}\u{1F600}',
    'Ǆǅǆ',
    '𝔘𝔫𝔦𝔠𝔬𝔡𝔢',
    'İı',
    'ß'.repeat(300),
  ),
  fc.constantFrom('x'.repeat(100_000), 'é'.repeat(70_000), '\u{1F4E6}'.repeat(20_000), 'a,'.repeat(20_000)),
  fc.string({ unit: 'binary', maxLength: 30 }),
  fc.string({ unit: 'grapheme', maxLength: 30 }),
  fc.array(fc.jsonValue({ maxDepth: 1 }), { maxLength: 3 }),
  fc.dictionary(fc.string({ maxLength: 8 }), fc.jsonValue({ maxDepth: 1 }), { maxKeys: 3 }),
  fc.constant(JSON.parse(deep(3000, '[', ']'))),
  fc.constant(JSON.parse(deep(3000, '{"a":', '}'))),
)

/** Paths to every node of a JSON value. */
function pathsOf(
  value: unknown,
  path: Array<string | number> = [],
  out: Array<Array<string | number>> = [],
): Array<Array<string | number>> {
  out.push(path)
  if (out.length > 200) return out
  if (Array.isArray(value)) value.forEach((v, i) => pathsOf(v, [...path, i], out))
  else if (value && typeof value === 'object') for (const [k, v] of Object.entries(value)) pathsOf(v, [...path, k], out)
  return out
}

function replaceAt(value: unknown, path: Array<string | number>, next: (old: unknown) => unknown): unknown {
  if (path.length === 0) return next(value)
  const [head, ...rest] = path
  if (Array.isArray(value)) return value.map((v, i) => (i === head ? replaceAt(v, rest, next) : v))
  if (value && typeof value === 'object')
    return { ...value, [head!]: replaceAt((value as Record<string, unknown>)[head as string], rest, next) }
  return value
}

type BodyCase = { mutation: string; payload: string | undefined; contentType: string | undefined }

const CONTENT_TYPES = [
  'text/plain',
  'application/x-www-form-urlencoded',
  'multipart/form-data; boundary=x',
  'application/json; charset=utf-16',
  'application/xml',
  'application/json;;',
  'Application/JSON',
  '*/*',
]

/** The body: valid, mutated at one node, with prototype keys or extra properties, raw nonsense, or under a wrong content type. */
function bodyCase(
  schema: Schema | undefined,
  components: Record<string, Schema>,
  known: KnownValues,
): fc.Arbitrary<BodyCase> {
  const json = (mutation: string, v: unknown): BodyCase => ({
    mutation,
    payload: JSON.stringify(v),
    contentType: 'application/json',
  })
  const valid = schema ? arbitraryOf(schema, components, known) : fc.constant({})
  const raw = fc.constantFrom(
    '{',
    '[',
    '',
    'null',
    '"x"',
    '1e999',
    '{"a":1,"a":2}',
    '\ufeff{}',
    '{"x":"\\ud800"}',
    '{"x":"\\u0000"}',
    deep(100_000, '[', ']'),
    deep(20_000, '{"a":', '}'),
    `"${'x'.repeat(200_000)}"`,
  )
  return fc.oneof(
    { weight: 4, arbitrary: valid.map((v) => json('valid', v)) },
    {
      weight: 6,
      arbitrary: fc.tuple(valid, fc.nat(), hostile).map(([v, n, h]) => {
        const paths = pathsOf(v)
        const at = paths[n % paths.length]!
        return json(
          `hostile value at /${at.join('/')}`,
          replaceAt(v, at, () => h),
        )
      }),
    },
    {
      weight: 2,
      arbitrary: fc
        .tuple(
          valid,
          fc.constantFrom('__proto__', 'constructor', 'prototype', 'toString', 'hasOwnProperty', 'x-extra'),
          hostile,
        )
        .map(([v, key, h]) => {
          const text = JSON.stringify(v)
          const extra = `${JSON.stringify(key)}:${JSON.stringify(key === '__proto__' || key === 'constructor' ? { prototype: { polluted: true }, polluted: h } : h)}`
          const payload = text.startsWith('{')
            ? text === '{}'
              ? `{${extra}}`
              : `{${extra},${text.slice(1)}`
            : `[{${extra}}]`
          return { mutation: `extra property ${key}`, payload, contentType: 'application/json' }
        }),
    },
    {
      weight: 1,
      arbitrary: raw.map((payload) => ({
        mutation: `raw body ${payload.slice(0, 20)}`,
        payload,
        contentType: 'application/json',
      })),
    },
    {
      weight: 1,
      arbitrary: fc
        .tuple(valid, fc.constantFrom(...CONTENT_TYPES, undefined))
        .map(([v, ct]) => ({ mutation: `content type ${ct}`, payload: JSON.stringify(v), contentType: ct })),
    },
  )
}

function paramValue(
  p: Operation['params'][number],
  components: Record<string, Schema>,
  known: KnownValues,
): fc.Arbitrary<string | undefined> {
  const valid = arbitraryOf(p.schema, components, known, 0, p.name).map((v) =>
    typeof v === 'string' ? v : JSON.stringify(v),
  )
  const nasty = hostile.map((h) => (typeof h === 'string' ? h : (JSON.stringify(h) ?? '')))
  return fc.oneof(
    { weight: 5, arbitrary: valid },
    { weight: 2, arbitrary: nasty },
    { weight: p.required ? 0 : 2, arbitrary: fc.constant(undefined) },
  )
}

/** URL-encodes, except (sometimes) leaving a malformed escape in on purpose. */
function encode(value: string, raw: boolean): string {
  try {
    if (raw) return value.replace(/[^%\w.-]/g, (c) => encodeURIComponent(c))
    return encodeURIComponent(value)
  } catch {
    return encodeURIComponent(value.replace(/[\ud800-\udfff]/g, '?')) + '%ED%A0%80'
  }
}

/** Requests for one operation: its parameters and body valid or mutated, with usual or odd headers. */
export function requestsFor(
  op: Operation,
  components: Record<string, Schema>,
  known: KnownValues,
  creds: Credentials,
): fc.Arbitrary<FuzzRequest> {
  const pathParams = op.params.filter((p) => p.in === 'path')
  const queryParams = op.params.filter((p) => p.in === 'query')
  const headerParams = op.params.filter((p) => p.in === 'header')
  // A DELETE of the seeded ids would leave the rest of the run with 404s only.
  const pathKnown = op.method === 'DELETE' ? {} : known
  return fc
    .record({
      path: fc.tuple(
        ...pathParams.map((p) => paramValue({ ...p, required: true }, components, pathKnown)),
        fc.boolean(),
      ),
      query: fc.tuple(...queryParams.map((p) => paramValue(p, components, known))),
      extraQuery: fc.option(fc.tuple(fc.constantFrom('x', '__proto__', 'constructor', 'skip', 'query'), hostile), {
        freq: 5,
      }),
      headers: fc.tuple(...headerParams.map((p) => paramValue(p, components, known))),
      body:
        op.body || op.method === 'POST' || op.method === 'PUT' || op.method === 'PATCH'
          ? bodyCase(op.body, components, known)
          : fc.constant<BodyCase>({ mutation: 'no body', payload: undefined, contentType: undefined }),
      auth: fc.oneof(
        { weight: 12, arbitrary: fc.constant('usual') },
        {
          weight: 1,
          arbitrary: fc.constantFrom(
            'none',
            'Bearer',
            'Bearer x.y.z',
            `Basic ${Buffer.from('\u0000:x').toString('base64')}`,
            'Basic !!!',
            `Bearer ${creds.bearer}x`,
            'Digest a=b',
          ),
        },
      ),
      idempotencyKey: fc.option(
        fc.oneof(fc.string({ minLength: 1, maxLength: 20 }), fc.constantFrom('k'.repeat(300), 'a b', 'é')),
        { freq: 6 },
      ),
      extraHeaders: fc.option(
        fc.constantFrom<Record<string, string>>(
          { 'x-user-name': '\u00e9\u00e9' },
          { 'if-match': 'abc' },
          { 'if-match': '99999999999999999999' },
          { accept: 'text/csv' },
          { 'x-correlation-id': 'x'.repeat(5000) },
          { 'x-user-name': 'x'.repeat(10_000) },
        ),
        { freq: 4 },
      ),
    })
    .map((r) => {
      const [rawPath, ...pathValues] = [r.path.at(-1) as boolean, ...(r.path.slice(0, -1) as Array<string | undefined>)]
      let url = op.path
      pathParams.forEach((p, i) => (url = url.replace(`{${p.name}}`, encode(pathValues[i] ?? '', rawPath))))
      const query = queryParams.flatMap((p, i) =>
        r.query[i] === undefined ? [] : [`${encodeURIComponent(p.name)}=${encode(r.query[i], false)}`],
      )
      if (r.extraQuery)
        query.push(
          `${r.extraQuery[0]}=${encode(typeof r.extraQuery[1] === 'string' ? r.extraQuery[1] : (JSON.stringify(r.extraQuery[1]) ?? ''), false)}`,
        )
      const headers: Record<string, string> = { ...(r.extraHeaders ?? {}) }
      headerParams.forEach((p, i) => r.headers[i] !== undefined && (headers[p.name.toLowerCase()] = r.headers[i]))
      if (r.auth === 'usual') headers.authorization = op.basicAuth ? `Basic ${creds.basic}` : `Bearer ${creds.bearer}`
      else if (r.auth !== 'none') headers.authorization = r.auth
      if (r.idempotencyKey !== null) headers['idempotency-key'] = r.idempotencyKey
      if (r.body.contentType) headers['content-type'] = r.body.contentType
      return {
        op,
        mutation: r.body.mutation,
        inject: {
          method: op.method as 'GET',
          url: query.length ? `${url}?${query.join('&')}` : url,
          headers,
          ...(r.body.payload !== undefined ? { payload: r.body.payload } : {}),
        },
      }
    })
}

/** What is wrong with an answer: a 5xx, or an error body that is not the contract's (CONTRACT §1). */
export function problemsOf(op: Operation, res: LightMyRequestResponse): string[] {
  if (res.statusCode >= 500) return [`status ${res.statusCode}`]
  if (res.statusCode < 400) return []
  let body: unknown
  try {
    body = JSON.parse(res.body)
  } catch {
    return [`error body is not JSON: ${res.body.slice(0, 80)}`]
  }
  const b = body as Record<string, unknown>
  // The token endpoint answers in OAuth's terms, and a 401 of the other interfaces is RFC 6750's.
  if (op.path.endsWith('/api/v1/token'))
    return typeof b.errorCode === 'string' || typeof b.error === 'string' ? [] : ['token error without errorCode/error']
  // SCIM answers every error in RFC 7644 §3.12's shape: identity providers read only that.
  if (op.path.startsWith('/scim/v2'))
    return Array.isArray(b.schemas) && b.status === String(res.statusCode) && typeof b.detail === 'string'
      ? []
      : ['SCIM error without schemas, status or detail']
  if (res.statusCode === 401) return typeof b.message === 'string' ? [] : ['401 without message']
  const errors = b.errors
  if (!Array.isArray(errors) || errors.length === 0) return [`no errors[]: ${res.body.slice(0, 80)}`]
  const fields = [
    'errorCode',
    'errorDescription',
    'additionalCode',
    'additionalInfo',
    'additionalParameters',
    'correlationID',
  ]
  const out: string[] = []
  for (const item of errors as Array<Record<string, unknown>>) {
    const missing = fields.filter((f) => typeof item[f] !== 'string')
    if (missing.length) out.push(`error item without ${missing.join(', ')}`)
  }
  return [...new Set(out)]
}

/** Sends a request; a request the client itself cannot send (a header light-my-request refuses) is `undefined`. */
export async function send(
  inject: (o: InjectOptions) => Promise<LightMyRequestResponse>,
  req: FuzzRequest,
): Promise<LightMyRequestResponse | undefined> {
  try {
    return await inject(req.inject)
  } catch (e) {
    if (e instanceof TypeError || (e as { code?: string }).code === 'ERR_INVALID_CHAR') return undefined
    throw e
  }
}
