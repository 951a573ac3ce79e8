import formbody from '@fastify/formbody'
import { Type } from '@sinclair/typebox'
import type { FastifyPluginAsync, FastifyReply, FastifyRequest } from 'fastify'
import { parseBasicAuth } from '../http/basic-auth.js'
import { AppError } from '../shared/errors.js'
import type { ClientsService } from './clients.service.js'
import { checkClientCredentials } from './credential-check.js'
import type { FailureLimiter } from './failure-limiter.js'
import type { KeyStore } from './keys.js'
import { API_SCOPE, type TokensService } from './tokens.service.js'

export interface TokenRoutesOptions {
  clients: ClientsService
  tokens: TokensService
  keys: KeyStore
  limiter: FailureLimiter
  issuer: string
  /** Absolute URL of this mount, for the discovery document. */
  baseUrl: string
}

const TokenResponseSchema = Type.Object({
  access_token: Type.String({ description: 'A JWT signed with EdDSA; `kid` names the key in the JWKS.' }),
  expires_in: Type.Literal(14400),
  scope: Type.Literal(API_SCOPE),
  token_type: Type.Literal('Bearer'),
})
const OAuthErrorSchema = Type.Object({ error: Type.String(), error_description: Type.String() })
const ClientErrorSchema = Type.Object({
  errorCode: Type.Literal('invalid_client'),
  errorSummary: Type.String(),
  errorLink: Type.String(),
  errorId: Type.String(),
  errorCauses: Type.Array(Type.Unknown()),
  error: Type.Literal('invalid_client'),
  error_description: Type.String(),
})
const TokenBodySchema = Type.Object({ grant_type: Type.Optional(Type.String()), scope: Type.Optional(Type.String()) }, { additionalProperties: true })

function oauthError(reply: FastifyReply, status: number, error: string, description: string) {
  return reply.code(status).header('cache-control', 'no-store').send({ error, error_description: description })
}

/** CONTRACT §1: the token endpoint's own 401 body, with the OAuth fields of RFC 6749 §5.2. */
function invalidClient(request: FastifyRequest, reply: FastifyReply, description: string) {
  return reply
    .code(401)
    .header('www-authenticate', 'Basic realm="mailroom", charset="UTF-8"')
    .header('cache-control', 'no-store')
    .send({
      errorCode: 'invalid_client',
      errorSummary: 'Client authentication failed.',
      errorLink: 'invalid_client',
      errorId: request.id,
      errorCauses: [],
      error: 'invalid_client',
      error_description: description,
    })
}

/** The access-token interface (CONTRACT §2): OAuth2 client credentials, JWKS and discovery. */
export const tokenRoutes: FastifyPluginAsync<TokenRoutesOptions> = async (app, opts) => {
  await app.register(formbody)
  // An empty body with a JSON content type is a valid token request here (CONTRACT §2).
  app.removeContentTypeParser('application/json')
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (_req, body, done) => {
    if (body === '' || (body as string).trim() === '') return done(null, {})
    try {
      done(null, JSON.parse(body as string))
    } catch {
      done(Object.assign(new Error('malformed JSON'), { statusCode: 400, code: 'TOKEN_BAD_JSON' }), undefined)
    }
  })
  // Token errors use OAuth bodies, not the receiving interface's errors[] (RFC 6749 §5.2).
  app.setErrorHandler((error: Error & { statusCode?: number; code?: string }, request, reply) => {
    // The API rate limit (issue 14.3) in OAuth's words; its Retry-After and RateLimit-* are set already.
    if (error instanceof AppError && error.status === 429) return oauthError(reply, 429, 'temporarily_unavailable', error.message)
    if (error.code === 'FST_ERR_CTP_BODY_TOO_LARGE') return oauthError(reply, 413, 'invalid_request', 'The request body is too large.')
    if (error.code === 'FST_ERR_CTP_INVALID_MEDIA_TYPE') return oauthError(reply, 415, 'invalid_request', 'Send an empty body, application/json or application/x-www-form-urlencoded.')
    if (error.statusCode && error.statusCode < 500) return oauthError(reply, 400, 'invalid_request', 'The request body could not be read.')
    request.log.error({ err: error }, 'token request failed')
    return oauthError(reply, 500, 'server_error', 'An unexpected error occurred.')
  })

  app.post('/api/v1/token', {
    bodyLimit: 16 * 1024,
    schema: {
      tags: ['access token'],
      summary: 'Issue an access token (OAuth2 client credentials)',
      description:
        'HTTP Basic with the client id and secret. The body may be empty, JSON `{"grant_type":"client_credentials"}` or a form ' +
        '`grant_type=client_credentials&scope=psapi`. Tokens last 4 hours. Repeated failures for one client id or address ' +
        'are refused with 429 and `Retry-After`.',
      security: [{ basicAuth: [] }],
      response: {
        200: TokenResponseSchema,
        400: OAuthErrorSchema,
        401: ClientErrorSchema,
        413: OAuthErrorSchema,
        415: OAuthErrorSchema,
        429: OAuthErrorSchema,
      },
    },
  }, async (request, reply) => {
    reply.header('cache-control', 'no-store').header('pragma', 'no-cache')
    const body = request.body == null ? {} : request.body
    if (typeof body !== 'object' || Array.isArray(body)) return oauthError(reply, 400, 'invalid_request', 'The body must be empty, a JSON object or a form.')
    const { grant_type: grantType, scope } = body as { grant_type?: unknown; scope?: unknown }
    if (grantType !== undefined && grantType !== 'client_credentials') {
      return oauthError(reply, 400, 'unsupported_grant_type', 'Only grant_type=client_credentials is supported.')
    }
    if (scope !== undefined && (typeof scope !== 'string' || !scope.split(' ').every((s) => s === API_SCOPE || s === ''))) {
      return oauthError(reply, 400, 'invalid_scope', `The only scope is ${API_SCOPE}.`)
    }
    const creds = parseBasicAuth(request.headers.authorization)
    const check = await checkClientCredentials(opts, creds, request.ip)
    if (check.outcome === 'limited') {
      reply.header('retry-after', String(check.retryAfterSeconds))
      return oauthError(reply, 429, 'temporarily_unavailable', `Too many failed attempts; retry in ${check.retryAfterSeconds} s.`)
    }
    if (check.outcome === 'invalid') {
      return invalidClient(request, reply, creds
        ? 'The client id or secret is invalid, or the client is disabled.'
        : 'Client authentication is required: HTTP Basic with the client id and secret.')
    }
    const client = check.client
    return opts.tokens.issueToken(client)
  })

  app.get('/.well-known/jwks.json', {
    schema: {
      tags: ['access token'],
      summary: 'Public keys that verify access tokens (RFC 7517)',
      response: { 200: Type.Object({ keys: Type.Array(Type.Object({}, { additionalProperties: true })) }) },
    },
  }, async (_request, reply) => {
    // Short cache: verifiers refetch soon after a rotation, which publishes the new key first.
    reply.header('cache-control', 'public, max-age=300')
    return opts.keys.jwks()
  })

  app.get('/.well-known/oauth-authorization-server', {
    schema: {
      tags: ['access token'],
      summary: 'Authorization server metadata (RFC 8414)',
      response: { 200: Type.Object({}, { additionalProperties: true }) },
    },
  }, async () => ({
    issuer: opts.issuer,
    token_endpoint: `${opts.baseUrl}/api/v1/token`,
    jwks_uri: `${opts.baseUrl}/.well-known/jwks.json`,
    grant_types_supported: ['client_credentials'],
    token_endpoint_auth_methods_supported: ['client_secret_basic'],
    scopes_supported: [API_SCOPE],
    response_types_supported: ['token'],
    token_endpoint_auth_signing_alg_values_supported: ['EdDSA'],
  }))
}
