import formbody from '@fastify/formbody'
import { Type } from '@sinclair/typebox'
import type { FastifyPluginAsync, FastifyReply, FastifyRequest } from 'fastify'
import { parseBasicAuth } from '../model/basic-auth.js'
import { AppError } from '../../platform/kit/errors.js'
import type { ClientIdentity, ClientsService } from '../clients-service.js'
import { checkClientCredentials } from '../model/credential-check.js'
import type { FailureLimiter } from '../model/failure-limiter.js'
import type { KeyStore } from '../model/key-store.js'
import { API_SCOPE, type TokensService } from '../tokens-service.js'

export interface TokenRoutesOptions {
  clients: ClientsService
  tokens: TokensService
  keys: KeyStore
  limiter: FailureLimiter
  issuer: string
}

const TokenResponseSchema = Type.Object({
  access_token: Type.String({
    description:
      'A JWT (`typ: at+jwt`) signed with ES256 by default (RS256 or EdDSA when configured); `kid` names the key in the JWKS.',
  }),
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
/** The body of a token request, JSON or form (RFC 6749 §4.4.2; client_secret_post credentials, §2.3.1). */
const TokenBodySchema = Type.Object(
  {
    grant_type: Type.Optional(Type.Literal('client_credentials')),
    scope: Type.Optional(Type.String({ description: `Space-separated; the only scope is ${API_SCOPE}.` })),
    client_id: Type.Optional(Type.String({ description: 'client_secret_post: the client id, instead of HTTP Basic.' })),
    client_secret: Type.Optional(
      Type.String({ description: 'client_secret_post: the client secret, instead of HTTP Basic.' }),
    ),
  },
  { additionalProperties: true, title: 'TokenRequest' },
)

declare module 'fastify' {
  interface FastifyRequest {
    /** The token endpoint's client, authenticated from HTTP Basic before the body was read. */
    tokenClient: ClientIdentity | null | undefined
  }
}

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

/** The access-token interface (CONTRACT §2): OAuth2 client credentials and JWKS (metadata: access/api/metadata.ts). */
export const tokenRoutes: FastifyPluginAsync<TokenRoutesOptions> = async (app, opts) => {
  await app.register(formbody)
  app.decorateRequest('tokenClient', null)
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
    if (error instanceof AppError && error.status === 429)
      return oauthError(reply, 429, 'temporarily_unavailable', error.message)
    // Without an Authorization header the credentials could only be in the body (client_secret_post):
    // a body that cannot be read is a request without credentials, so a 401 whatever its type.
    if (!request.headers.authorization && error.statusCode && error.statusCode < 500) {
      return invalidClient(
        request,
        reply,
        'Client authentication is required: HTTP Basic with the client id and secret.',
      )
    }
    if (error.code === 'FST_ERR_CTP_BODY_TOO_LARGE')
      return oauthError(reply, 413, 'invalid_request', 'The request body is too large.')
    if (error.code === 'FST_ERR_CTP_INVALID_MEDIA_TYPE')
      return oauthError(
        reply,
        415,
        'invalid_request',
        'Send an empty body, application/json or application/x-www-form-urlencoded.',
      )
    if (error.statusCode && error.statusCode < 500)
      return oauthError(reply, 400, 'invalid_request', 'The request body could not be read.')
    request.log.error({ err: error }, 'token request failed')
    return oauthError(reply, 500, 'server_error', 'An unexpected error occurred.')
  })

  /** Answers 401/429 itself and returns undefined, or returns the authenticated client. */
  async function authenticate(
    request: FastifyRequest,
    reply: FastifyReply,
    creds: { clientId: string; clientSecret: string } | undefined,
  ) {
    const check = await checkClientCredentials(opts, creds, request.ip)
    if (check.outcome === 'limited') {
      reply.header('retry-after', String(check.retryAfterSeconds))
      await oauthError(
        reply,
        429,
        'temporarily_unavailable',
        `Too many failed attempts; retry in ${check.retryAfterSeconds} s.`,
      )
      return undefined
    }
    if (check.outcome === 'invalid') {
      await invalidClient(
        request,
        reply,
        creds
          ? 'The client id or secret is invalid, or the client is disabled.'
          : 'Client authentication is required: HTTP Basic with the client id and secret.',
      )
      return undefined
    }
    return check.client
  }

  app.post(
    '/api/v1/token',
    {
      bodyLimit: 16 * 1024,
      // The address's rate limit first, then HTTP Basic, both before the body is read: a flood past the limit
      // costs no secret hash, and a wrong or missing client never reaches the parser.
      config: { rateLimit: false },
      onRequest: [
        app.rateLimit(),
        async (request, reply) => {
          if (request.headers.authorization === undefined) return
          request.tokenClient = await authenticate(request, reply, parseBasicAuth(request.headers.authorization))
          if (!request.tokenClient) return reply
        },
      ],
      schema: {
        tags: ['access token'],
        summary: 'Issue an access token (OAuth2 client credentials)',
        description:
          'HTTP Basic with the client id and secret (`client_secret_basic`), or `client_id` and `client_secret` in the body ' +
          '(`client_secret_post`). The body may be empty, JSON `{"grant_type":"client_credentials"}` or a form ' +
          '`grant_type=client_credentials&scope=psapi`. Tokens last 4 hours. A request without valid credentials is a 401 whatever ' +
          'its content type.\n\n' +
          'Guessing is limited per attempt, each counted before the secret is checked (a burst of concurrent wrong attempts ' +
          'gets at most the limit checked, the rest 429 with `Retry-After`): per client id from one address (`TOKEN_FAILURE_LIMIT` ' +
          'failures per `TOKEN_FAILURE_WINDOW_SECONDS`), per address across client ids (5 times that), and per client id from ' +
          'everywhere (100 times that). An address the client id got a token from in the last 30 days passes that last, global ' +
          'limit: failures of others cannot lock a client out of the addresses it uses. HTTP Basic on the webhook interfaces counts ' +
          'in the same limits.',
        security: [{ basicAuth: [] }, {}],
        consumes: ['application/x-www-form-urlencoded', 'application/json'],
        body: TokenBodySchema,
        response: {
          200: TokenResponseSchema,
          400: OAuthErrorSchema,
          401: ClientErrorSchema,
          413: OAuthErrorSchema,
          415: OAuthErrorSchema,
          429: OAuthErrorSchema,
          500: OAuthErrorSchema,
        },
      },
      // The body is checked below with OAuth errors, not by the schema (which documents it).
      validatorCompiler: () => () => true,
    },
    async (request, reply) => {
      reply.header('cache-control', 'no-store').header('pragma', 'no-cache')
      const body = request.body == null ? {} : request.body
      const fields = typeof body === 'object' && !Array.isArray(body) ? (body as Record<string, unknown>) : undefined
      let client = request.tokenClient
      if (!client) {
        // No Authorization header: client_secret_post, or no credentials at all.
        const clientId = fields?.client_id
        const clientSecret = fields?.client_secret
        const creds =
          typeof clientId === 'string' && typeof clientSecret === 'string' && clientId && clientSecret
            ? { clientId, clientSecret }
            : undefined
        client = await authenticate(request, reply, creds)
        if (!client) return reply
      } else if (fields && (fields.client_id !== undefined || fields.client_secret !== undefined)) {
        // RFC 6749 §2.3: one authentication method per request.
        if (fields.client_secret !== undefined || fields.client_id !== client.clientId) {
          return oauthError(
            reply,
            400,
            'invalid_request',
            'Authenticate with HTTP Basic or with client_id/client_secret in the body, not both.',
          )
        }
      }
      if (!fields) return oauthError(reply, 400, 'invalid_request', 'The body must be empty, a JSON object or a form.')
      const { grant_type: grantType, scope } = fields
      if (grantType !== undefined && grantType !== 'client_credentials') {
        return oauthError(reply, 400, 'unsupported_grant_type', 'Only grant_type=client_credentials is supported.')
      }
      if (
        scope !== undefined &&
        (typeof scope !== 'string' || !scope.split(' ').every((s) => s === API_SCOPE || s === ''))
      ) {
        return oauthError(reply, 400, 'invalid_scope', `The only scope is ${API_SCOPE}.`)
      }
      return opts.tokens.issueToken(client)
    },
  )

  app.get(
    '/.well-known/jwks.json',
    {
      schema: {
        tags: ['access token'],
        summary: 'Public keys that verify access tokens (RFC 7517)',
        response: {
          200: Type.Object({
            keys: Type.Array(
              Type.Object(
                {
                  kid: Type.String(),
                  kty: Type.String({ description: '`EC` (ES256), `RSA` (RS256) or `OKP` (EdDSA)' }),
                  alg: Type.String(),
                  use: Type.Literal('sig'),
                },
                { additionalProperties: true },
              ),
            ),
          }),
        },
      },
    },
    async (_request, reply) => {
      // Short cache: verifiers refetch soon after a rotation, which publishes the new key first.
      reply.header('cache-control', 'public, max-age=300')
      return opts.keys.jwks()
    },
  )
}
