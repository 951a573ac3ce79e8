import { beforeAll, describe, expect, it } from 'vitest'
import { useTestApp } from '../support/use-test-app.js'
import { ResponseValidator } from '../support/openapi-validator.js'

type Json = Record<string, any>
const t = useTestApp()
let doc: Json
beforeAll(async () => {
  doc = (await t.inject({ method: 'GET', url: '/openapi.json' })).json()
})

function operations(): Array<{ method: string; path: string; op: Json }> {
  return Object.entries(doc.paths as Json).flatMap(([path, item]) =>
    Object.entries(item as Json).map(([method, op]) => ({ method, path, op: op as Json })),
  )
}
const resolve = (r: Json): Json =>
  r.$ref
    ? (r.$ref as string)
        .split('/')
        .slice(1)
        .reduce((o: Json, k: string) => o[k], doc)
    : r

describe('the OpenAPI document', () => {
  it('has a relative server URL, so the docs page works from any host name', () => {
    expect(doc.servers).toEqual([expect.objectContaining({ url: '/' })])
  })

  it('gives every operation a unique operationId and a security requirement (empty for public ones)', () => {
    const ids = operations().map(({ op }) => op.operationId)
    expect(ids.every((id) => typeof id === 'string' && id.length > 0)).toBe(true)
    expect(new Set(ids).size).toBe(ids.length)
    for (const { method, path, op } of operations()) expect(Array.isArray(op.security), `${method} ${path}`).toBe(true)
    expect(doc.paths['/healthz'].get.security).toEqual([])
    expect(doc.paths['/api/v1/packages'].post.security).toEqual([{ bearerAuth: [] }])
  })

  it('marks no defaulted parameter or body field as required', () => {
    let defaulted = 0
    for (const { method, path, op } of operations()) {
      for (const p of op.parameters ?? []) {
        if (p.schema && 'default' in p.schema) {
          defaulted++
          expect(p.required, `${method} ${path} ${p.name}`).toBe(false)
        }
      }
      const walk = (s: Json | undefined, where: string) => {
        if (!s || typeof s !== 'object') return
        for (const k of s.required ?? [])
          expect(s.properties?.[k] && 'default' in s.properties[k], `${where}.${k}`).toBeFalsy()
        defaulted += Object.values(s.properties ?? {}).filter(
          (v) => v && typeof v === 'object' && 'default' in (v as Json),
        ).length
        for (const [k, v] of Object.entries(s.properties ?? {})) walk(v as Json, `${where}.${k}`)
        for (const v of [...(s.anyOf ?? []), ...(s.oneOf ?? []), ...(s.allOf ?? [])]) walk(v, where)
        if (s.items) walk(s.items, `${where}[]`)
      }
      for (const media of Object.values(op.requestBody?.content ?? {}))
        walk((media as Json).schema, `${method} ${path} body`)
    }
    expect(defaulted).toBeGreaterThanOrEqual(20)
  })

  it('writes unions of constants as enums', () => {
    const unions: string[] = []
    const single = (m: Json) =>
      m && typeof m === 'object' && ('const' in m || (Array.isArray(m.enum) && m.enum.length === 1))
    const walk = (n: unknown, at: string) => {
      if (!n || typeof n !== 'object') return
      const any = (n as Json).anyOf
      if (Array.isArray(any) && any.length > 0 && any.every(single)) unions.push(at)
      for (const [k, v] of Object.entries(n)) walk(v, `${at}/${k}`)
    }
    walk(doc, '#')
    expect(unions).toEqual([])
    const item = doc.components.schemas.ErrorBody.properties.errors.items
    expect(item.properties.errorCode.enum).toEqual([
      'validation_error',
      'not_found',
      'already_exists',
      'internal_error',
    ])
    expect(item.required.sort()).toEqual([
      'additionalCode',
      'additionalInfo',
      'additionalParameters',
      'correlationID',
      'errorCode',
      'errorDescription',
    ])
  })

  it('documents the token request body: empty, JSON or form', () => {
    const body = doc.paths['/auth/api/v1/token'].post.requestBody
    expect(body.required).toBe(false)
    expect(Object.keys(body.content).sort()).toEqual(['application/json', 'application/x-www-form-urlencoded'])
  })

  it('documents the CSV of the custom search, and image bytes by media type', () => {
    expect(Object.keys(doc.paths['/api/v1/packages/search'].post.responses['200'].content).sort()).toEqual([
      'application/json',
      'text/csv',
    ])
    expect(Object.keys(doc.paths['/api/v1/packages/images/{imageId}'].get.responses['200'].content)).toContain(
      'image/png',
    )
    expect(doc.paths['/api/v1/packages/images/{imageId}'].get.responses['200'].headers).toHaveProperty('ETag')
  })

  it('declares the headers the service reads and writes', () => {
    const names = (op: Json) => (op.parameters as Json[]).filter((p) => p.in === 'header').map((p) => p.name)
    expect(names(doc.paths['/api/v1/packages'].post)).toEqual(
      expect.arrayContaining(['Idempotency-Key', 'X-User-Name', 'X-Correlation-ID']),
    )
    expect(names(doc.paths['/api/v1/packages/{packageId}'].put)).toEqual(
      expect.arrayContaining(['If-Match', 'X-User-Name']),
    )
    const add = doc.paths['/api/v1/packages'].post.responses
    expect(Object.keys(add['201'].headers)).toEqual(
      expect.arrayContaining(['X-Correlation-ID', 'Idempotent-Replayed', 'RateLimit-Limit']),
    )
    expect(Object.keys(resolve(add['429']).headers)).toEqual(
      expect.arrayContaining(['Retry-After', 'X-Correlation-ID']),
    )
    for (const status of ['400', '401', '409', '413', '415', '429', '500']) expect(add, status).toHaveProperty(status)
    expect(doc.paths['/api/v1/packages/{packageId}'].put.responses).toHaveProperty('412')
  })
})

describe('the response check of the suite', () => {
  const validator = () => new ResponseValidator(doc)
  const json = (statusCode: number, body: unknown, headers: Json = {}) => ({
    statusCode,
    headers: { 'content-type': 'application/json; charset=utf-8', 'x-correlation-id': 'c', ...headers },
    body: JSON.stringify(body),
  })

  it('names the route, the status and the path of a mismatch', () => {
    expect(validator().problems('GET', '/api/v1/packages/p1?type=DETAILED', json(418, {}))).toEqual([
      expect.stringMatching(
        /^GET \/api\/v1\/packages\/\{packageId\} \(getPackagesByPackageId\) answered 418 to \/api\/v1\/packages\/p1\?type=DETAILED: status 418 is not documented/,
      ),
    ])
    const [problem] = validator().problems(
      'GET',
      '/api/v1/session',
      json(200, { clientId: 'a', subId: 'b', scope: 'psapi', expiresAt: 5 }),
    )
    expect(problem).toMatch(/^GET \/api\/v1\/session \(getSession\) answered 200 .*body\/expiresAt/)
  })

  it('checks required headers and content types', () => {
    const noId = {
      statusCode: 404,
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ errors: [] }),
    }
    expect(validator().problems('GET', '/api/v1/packages/p1', noId)).toEqual([
      expect.stringContaining('required header X-Correlation-ID is missing'),
    ])
    expect(
      validator().problems('GET', '/api/v1/session', {
        ...json(200, {}),
        headers: { 'content-type': 'text/html', 'x-correlation-id': 'c' },
      }),
    ).toEqual([expect.stringContaining('content type "text/html" is not documented')])
  })

  it('holds answers without a route to the error model', () => {
    expect(validator().problems('GET', '/nowhere', json(404, { message: 'x' }))).toEqual(
      expect.arrayContaining([expect.stringMatching(/^GET \/nowhere \(no documented operation\) answered 404/)]),
    )
  })
})
