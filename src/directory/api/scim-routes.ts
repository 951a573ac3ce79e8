import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify'
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { Type } from '@sinclair/typebox'
import { MAX_JSON_DEPTH, nestsDeeperThan } from '../../platform/http/json-depth.js'
import { ScimError } from '../model/scim-error.js'
import { SCIM_CONTENT_TYPE, sendError, toScim } from './scim-answers.js'
import { answerFrameworkErrorsUnder } from '../../platform/http/framework-errors.js'
import { LIST_SCHEMA, resourceTypes, schemas, serviceProviderConfig } from '../model/scim-schemas.js'
import type { ListQuery, ScimService } from '../scim-service.js'

type Json = Record<string, unknown>
import type { ScimTokensService } from '../scim-tokens-service.js'
import { IdParams, ListQuerySchema, ScimListSchema, ScimResourceSchema, scimBody, scimErrors } from './scim-schemas.js'

declare module 'fastify' {
  interface FastifyRequest {
    /** The subscription of the SCIM bearer token (the SCIM scope only). */
    scimSubId: string | null
  }
}

function baseUrl(publicUrl: string, prefix: string): string {
  return `${publicUrl.replace(/\/$/, '')}${prefix}`
}

const tags = ['scim']
const security = [{ scimToken: [] }]

/**
 * The SCIM 2.0 service provider (RFC 7643, RFC 7644) at `/scim/v2`: its own bearer tokens, its
 * own content type and error body. Identity providers (Okta, Entra ID, OneLogin) provision
 * recipients here.
 */
export const scimRoutes: FastifyPluginAsyncTypebox<{
  scim: ScimService
  tokens: ScimTokensService
  publicUrl: string
  prefix: string
}> = async (app, { scim, tokens, publicUrl, prefix }) => {
  const base = baseUrl(publicUrl, prefix)
  // A URL the framework refuses before routing (bad percent-encoding, an over-long id) is answered
  // in SCIM's shape too: identity providers read only that.
  // (SCIM has no 414: an over-long id is bad syntax like the rest.)
  answerFrameworkErrorsUnder(`${prefix}/`, (reply, _status, detail) => sendError(reply, 400, detail, 'invalidSyntax'))
  // RFC 7644 §3.1: requests and responses are application/scim+json; plain JSON is accepted too.
  app.addContentTypeParser('application/scim+json', { parseAs: 'string' }, (_request, body, done) => {
    // The same depth guard as application/json (app.ts): a deeper body overflows the walks after it.
    if (nestsDeeperThan(body as string, MAX_JSON_DEPTH))
      return done(
        new ScimError(400, 'invalidSyntax', `The body nests deeper than ${MAX_JSON_DEPTH} levels.`),
        undefined,
      )
    try {
      done(null, body === '' ? undefined : JSON.parse(body as string))
    } catch {
      done(new ScimError(400, 'invalidSyntax', 'The body is not well-formed JSON.'), undefined)
    }
  })
  app.decorateRequest('scimSubId', null)
  app.decorateRequest('rateSubId', null)
  // The token is read here and refused after the rate check (the routes' own onRequest hook):
  // a good token counts against its subscription, a bad one against the caller's address.
  app.addHook('onRequest', async (request: FastifyRequest) => {
    const header = request.headers.authorization ?? ''
    const m = /^Bearer\s+(\S+)$/i.exec(header)
    const subId = m ? await tokens.verify(m[1]!) : null
    request.scimSubId = subId
    request.rateSubId = subId
  })
  app.addHook('preParsing', (request: FastifyRequest, reply: FastifyReply, _payload, done) => {
    if (request.scimSubId) return done()
    void reply.header('www-authenticate', 'Bearer realm="scim"')
    done(new ScimError(401, undefined, 'A valid SCIM bearer token is required.'))
  })
  // Every answer in SCIM's media type, set before the serializer picks the response schema by it.
  app.addHook('onRequest', async (_request, reply) => {
    void reply.type(SCIM_CONTENT_TYPE)
  })
  app.setErrorHandler((error: FastifyError | Error, request, reply) => {
    const e = toScim(error)
    if (e.status >= 500) request.log.error({ err: error }, 'request failed')
    return sendError(reply, e.status, e.detail, e.scimType)
  })
  app.setNotFoundHandler((request, reply) =>
    sendError(reply, 404, `No SCIM endpoint ${request.method} ${request.url.split('?')[0]}.`),
  )

  const sub = (request: FastifyRequest) => request.scimSubId!
  const loose = scimBody(ScimResourceSchema)
  const list = scimBody(ScimListSchema)

  app.get(
    '/ServiceProviderConfig',
    {
      schema: {
        tags,
        security,
        summary: 'SCIM service provider configuration',
        response: { 200: loose, ...scimErrors() },
      },
    },
    async () => serviceProviderConfig(base),
  )
  const listOf = (items: Array<Record<string, unknown>>) => ({
    schemas: [LIST_SCHEMA],
    totalResults: items.length,
    startIndex: 1,
    itemsPerPage: items.length,
    Resources: items,
  })
  app.get(
    '/ResourceTypes',
    { schema: { tags, security, summary: 'SCIM resource types', response: { 200: list, ...scimErrors() } } },
    async () => listOf(resourceTypes(base)),
  )
  app.get(
    '/ResourceTypes/:id',
    {
      schema: {
        tags,
        security,
        summary: 'A SCIM resource type',
        params: IdParams,
        response: { 200: loose, ...scimErrors(404) },
      },
    },
    async (request) => {
      const t = resourceTypes(base).find((r) => r.id === request.params.id)
      if (!t) throw new ScimError(404, undefined, `No resource type ${request.params.id}.`)
      return t
    },
  )
  app.get(
    '/Schemas',
    { schema: { tags, security, summary: 'SCIM schemas', response: { 200: list, ...scimErrors() } } },
    async () => listOf(schemas(base)),
  )
  app.get(
    '/Schemas/:id',
    {
      schema: {
        tags,
        security,
        summary: 'A SCIM schema',
        params: Type.Object({ id: Type.String({ maxLength: 200 }) }),
        response: { 200: loose, ...scimErrors(404) },
      },
    },
    async (request) => {
      const s = schemas(base).find((r) => r.id === request.params.id)
      if (!s) throw new ScimError(404, undefined, `No schema ${request.params.id}.`)
      return s
    },
  )

  const body = Type.Object({}, { additionalProperties: true })
  for (const [resource, ops] of [
    [
      'Users',
      {
        list: (s: string, b: string, q: ListQuery) => scim.listUsers(s, b, q),
        get: (s: string, id: string, b: string, q: ListQuery) => scim.getUser(s, id, b, q),
        create: (s: string, body: Json, b: string) => scim.createUser(s, body, b),
        replace: (s: string, id: string, body: Json, b: string) => scim.replaceUser(s, id, body, b),
        patch: (s: string, id: string, body: unknown, b: string) => scim.patchUser(s, id, body, b),
        remove: (subId: string, id: string) => scim.deactivateUser(subId, id, base),
      },
    ],
    [
      'Groups',
      {
        list: (s: string, b: string, q: ListQuery) => scim.listGroups(s, b, q),
        get: (s: string, id: string, b: string, q: ListQuery) => scim.getGroup(s, id, b, q),
        create: (s: string, body: Json, b: string) => scim.createGroup(s, body, b),
        replace: (s: string, id: string, body: Json, b: string) => scim.replaceGroup(s, id, body, b),
        patch: (s: string, id: string, body: unknown, b: string) => scim.patchGroup(s, id, body, b),
        remove: (subId: string, id: string) => scim.deactivateGroup(subId, id),
      },
    ],
  ] as const) {
    const what = resource === 'Users' ? 'recipients (contacts)' : 'group contacts'
    app.get(
      `/${resource}`,
      {
        schema: {
          tags,
          security,
          summary: `List SCIM ${resource}`,
          description: `The ${what} provisioned by SCIM.`,
          querystring: ListQuerySchema,
          response: { 200: list, ...scimErrors() },
        },
      },
      async (request) => ops.list(sub(request), base, request.query),
    )
    app.get(
      `/${resource}/:id`,
      {
        schema: {
          tags,
          security,
          summary: `Get a SCIM ${resource.slice(0, -1)}`,
          params: IdParams,
          querystring: ListQuerySchema,
          response: { 200: loose, ...scimErrors(404) },
        },
      },
      async (request) => ops.get(sub(request), request.params.id, base, request.query),
    )
    app.post(
      `/${resource}`,
      {
        schema: {
          tags,
          security,
          summary: `Create a SCIM ${resource.slice(0, -1)}`,
          body,
          response: { 201: scimBody(ScimResourceSchema, 'Created'), ...scimErrors(409) },
        },
      },
      async (request, reply) => {
        const created = await ops.create(sub(request), request.body, base)
        return reply
          .code(201)
          .header('location', `${base}/${resource}/${String(created.id)}`)
          .send(created)
      },
    )
    app.put(
      `/${resource}/:id`,
      {
        schema: {
          tags,
          security,
          summary: `Replace a SCIM ${resource.slice(0, -1)}`,
          params: IdParams,
          body,
          response: { 200: loose, ...scimErrors(404, 409) },
        },
      },
      async (request) => ops.replace(sub(request), request.params.id, request.body, base),
    )
    app.patch(
      `/${resource}/:id`,
      {
        schema: {
          tags,
          security,
          summary: `Patch a SCIM ${resource.slice(0, -1)}`,
          description: 'PatchOp (RFC 7644 §3.5.2), with the forms Okta and Entra ID send.',
          params: IdParams,
          body,
          response: { 200: loose, ...scimErrors(404, 409) },
        },
      },
      async (request) => ops.patch(sub(request), request.params.id, request.body, base),
    )
    app.delete(
      `/${resource}/:id`,
      {
        schema: {
          tags,
          security,
          summary: `Deactivate a SCIM ${resource.slice(0, -1)}`,
          description: 'Deactivates: nothing is deleted (parcels keep their history).',
          params: IdParams,
          response: { 204: { description: 'Deactivated.', type: 'null' }, ...scimErrors(404) },
        },
      },
      async (request, reply) => {
        await ops.remove(sub(request), request.params.id)
        return reply.code(204).send(null)
      },
    )
  }
}
