import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js'
import addFormats from 'ajv-formats'
import { createHash } from 'node:crypto'

/**
 * Checks a response against the OpenAPI document the app serves: the status is documented for the
 * operation, the content type is one it declares, a JSON body validates against its schema, and the
 * required headers are there. build-test-app's inject runs it on every response the suite receives,
 * so the document cannot drift from what the service does.
 */
export interface ResponseLike {
  statusCode: number
  headers: Record<string, string | string[] | number | undefined>
  body: string
}

type Json = Record<string, unknown>
interface Operation {
  method: string
  path: string
  pattern: RegExp
  params: number
  op: {
    operationId?: string
    responses: Record<
      string,
      { content?: Record<string, unknown>; headers?: Record<string, { required?: boolean; $ref?: string }> }
    >
  }
}

/** Not in the document on purpose: the docs page, the document itself, Prometheus metrics. */
const UNDOCUMENTED = [/^\/docs(\/|$)/, /^\/openapi\.json$/, /^\/metrics$/]
const METHODS = ['get', 'put', 'post', 'delete', 'patch', 'head', 'options']

export class ResponseValidator {
  readonly #ajv: Ajv2020
  readonly #operations: Operation[] = []
  readonly #compiled = new Map<string, ValidateFunction>()
  readonly #sharedHeaders: Record<string, { required?: boolean }>
  readonly #sharedResponses: Record<string, Operation['op']['responses'][string]>

  constructor(doc: Json) {
    this.#sharedHeaders = ((doc.components as Json | undefined)?.headers ?? {}) as Record<
      string,
      { required?: boolean }
    >
    this.#sharedResponses = ((doc.components as Json | undefined)?.responses ?? {}) as Record<
      string,
      Operation['op']['responses'][string]
    >
    this.#ajv = new Ajv2020({ strict: false, allErrors: true, validateFormats: true, logger: false })
    addFormats.default(this.#ajv)
    this.#ajv.addFormat('binary', true)
    this.#ajv.addSchema(doc, 'openapi.json')
    for (const [path, item] of Object.entries(doc.paths as Record<string, Record<string, Operation['op']>>)) {
      for (const method of METHODS) {
        if (!item[method]) continue
        const source = path
          .split('/')
          .map((s) => (s.startsWith('{') ? '[^/]+' : s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')))
          .join('/')
        this.#operations.push({
          method,
          path,
          pattern: new RegExp(`^${source}$`),
          params: (path.match(/\{/g) ?? []).length,
          op: item[method],
        })
      }
    }
  }

  /** Every way `res` differs from the document; empty when it matches. */
  problems(method: string, url: string, res: ResponseLike): string[] {
    // Dot segments resolved as a client (and light-my-request's URL parsing) resolves them before
    // sending: `/clients/./secret` is requested as `/clients/secret`, and answered as that path.
    const path = new URL(url.split('?')[0]!, 'http://mailroom.test').pathname
    if (UNDOCUMENTED.some((p) => p.test(path))) return []
    const m = method.toLowerCase() === 'head' ? 'get' : method.toLowerCase()
    const status = String(res.statusCode)
    // Static segments win over parameters, as in the router.
    const found = this.#operations
      .filter((o) => o.method === m && o.pattern.test(path))
      .sort((a, b) => a.params - b.params)[0]
    const where = found
      ? `${method.toUpperCase()} ${found.path} (${found.op.operationId}) answered ${status} to ${url}`
      : `${method.toUpperCase()} ${url} (no documented operation) answered ${status}`
    if (!found) {
      // Answers before or without a route (unknown path, 405, bad URL) are error bodies.
      if (res.statusCode < 400) return [`${where}: a success for a path and method the document does not have`]
      // SCIM (RFC 7644 §3.12) answers every error under its mount in its own shape.
      if (path.startsWith('/scim/v2/') || path === '/scim/v2')
        return this.#checkBody(where, res, 'openapi.json#/components/schemas/ScimError', method)
      // Under a bearer mount the token is checked before the router's 404 (CONTRACT §1: 401 is `{message}`).
      return this.#checkBody(
        where,
        res,
        `openapi.json#/components/schemas/${res.statusCode === 401 ? 'Unauthorized' : 'ErrorBody'}`,
        method,
      )
    }
    const key = [status, `${status[0]}XX`, 'default'].find((k) => found.op.responses[k])
    const declared = key === undefined ? undefined : found.op.responses[key]!
    // A shared response (components.responses) is checked at its own address.
    const shared =
      declared && '$ref' in declared
        ? String((declared as { $ref: string }).$ref)
            .split('/')
            .pop()!
        : undefined
    const response = shared ? this.#sharedResponses[shared] : declared
    if (!response)
      return [
        `${where}: status ${status} is not documented (documented: ${Object.keys(found.op.responses).join(', ')})`,
      ]
    const problems: string[] = []
    for (const [name, declared] of Object.entries(response.headers ?? {})) {
      const h = '$ref' in declared ? (this.#sharedHeaders[String(declared.$ref).split('/').pop()!] ?? {}) : declared
      if (h.required && res.headers[name.toLowerCase()] === undefined)
        problems.push(`${where}: required header ${name} is missing`)
    }
    if (method.toUpperCase() === 'HEAD' || res.body === '') return problems
    const type = String(res.headers['content-type'] ?? '')
      .split(';')[0]!
      .trim()
      .toLowerCase()
    const media = Object.keys(response.content ?? {}).find((declared) => mediaMatches(declared, type))
    if (!media)
      return [
        ...problems,
        `${where}: content type ${JSON.stringify(type)} is not documented (documented: ${Object.keys(response.content ?? {}).join(', ') || 'no body'})`,
      ]
    if (!/[/+]json$/.test(media)) return problems
    const pointer = shared
      ? ['components', 'responses', shared, 'content', media, 'schema']
      : ['paths', found.path, found.method, 'responses', key!, 'content', media, 'schema']
    return [
      ...problems,
      ...this.#checkBody(where, res, `openapi.json#/${pointer.map(escapePointer).join('/')}`, method),
    ]
  }

  #checkBody(where: string, res: ResponseLike, ref: string, method: string): string[] {
    if (method.toUpperCase() === 'HEAD' || res.body === '') return []
    let body: unknown
    try {
      body = JSON.parse(res.body)
    } catch {
      return [`${where}: the body is not JSON: ${res.body.slice(0, 200)}`]
    }
    let validate = this.#compiled.get(ref)
    if (!validate) {
      validate = this.#ajv.getSchema(ref)
      if (!validate) return [`${where}: no schema at ${ref}`]
      this.#compiled.set(ref, validate)
    }
    if (validate(body)) return []
    return (validate.errors ?? [])
      .slice(0, 10)
      .map((e) => `${where}: body${e.instancePath || ''} ${e.message ?? 'is invalid'} ${JSON.stringify(e.params)}`)
  }
}

function mediaMatches(declared: string, actual: string): boolean {
  if (declared === actual || declared === '*/*') return true
  return declared.endsWith('/*') && actual.startsWith(declared.slice(0, -1))
}

function escapePointer(token: string): string {
  return encodeURIComponent(token.replace(/~/g, '~0').replace(/\//g, '~1'))
}

const cache = new Map<string, ResponseValidator>()

/** One compiled validator per distinct document (apps built with other prefixes have their own). */
export function validatorFor(doc: Json): ResponseValidator {
  const key = createHash('sha256').update(JSON.stringify(doc)).digest('hex')
  let v = cache.get(key)
  if (!v) cache.set(key, (v = new ResponseValidator(doc)))
  return v
}
