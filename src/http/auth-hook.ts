import type { FastifyReply, FastifyRequest, HookHandlerDoneFunction, onRequestHookHandler } from 'fastify'
import type { ClientsService } from '../auth/clients.service.js'
import type { FailureLimiter } from '../auth/failure-limiter.js'
import { API_SCOPE, InvalidTokenError, type Tenant, type TokensService } from '../auth/tokens.service.js'
import { checkClientCredentials } from '../auth/credential-check.js'
import { parseBasicAuth } from './basic-auth.js'
import { sendError } from './error-handler.js'

declare module 'fastify' {
  interface FastifyRequest {
    /** The verified caller; set by the auth hook on every protected route. */
    tenant: Tenant
  }
}

export interface AuthHookDeps {
  tokens: TokensService
  clients: ClientsService
  /** The webhook interface also takes client credentials directly (CONTRACT §4). */
  basic?: { limiter: FailureLimiter }
}

const REALM = 'mailroom'
const BEARER = /^bearer /i

/** RFC 6750 §3: 401 `{message}` with a WWW-Authenticate challenge; no error code when no credentials came. */
function refuse(
  reply: FastifyReply,
  message: string,
  oauthError?: 'invalid_token' | 'insufficient_scope',
  allowBasic = false,
) {
  const status = oauthError === 'insufficient_scope' ? 403 : 401
  let challenge = `Bearer realm="${REALM}"`
  if (oauthError) challenge += `, error="${oauthError}", error_description="${message.replace(/"/g, "'")}"`
  if (oauthError === 'insufficient_scope') challenge += `, scope="${API_SCOPE}"`
  const headers: string[] = [challenge]
  if (allowBasic) headers.push(`Basic realm="${REALM}"`)
  return reply.code(status).header('www-authenticate', headers.join(', ')).send({ message })
}

/** Verifies the bearer token locally (signature, issuer, expiry, scope, client status) before the body is read. */
export function bearerAuthHook(deps: AuthHookDeps): onRequestHookHandler {
  const allowBasic = deps.basic !== undefined
  const slow = slowPath(deps, allowBasic)
  // Callback style: a token seen before resolves from memory without a promise or a tick.
  return function authenticate(request: FastifyRequest, reply: FastifyReply, done: HookHandlerDoneFunction) {
    const header = request.headers.authorization
    if (header !== undefined && BEARER.test(header)) {
      const cached = deps.tokens.peek(header.slice(7).trim())
      if (cached) {
        request.tenant = cached
        return done()
      }
    }
    slow(request, reply).then(() => {
      if (!reply.sent) done()
    }, done)
  }
}

function slowPath(deps: AuthHookDeps, allowBasic: boolean) {
  return async function authenticate(request: FastifyRequest, reply: FastifyReply): Promise<unknown> {
    const header = request.headers.authorization
    if (!header)
      return refuse(reply, 'Authentication required: send Authorization: Bearer <access token>.', undefined, allowBasic)
    const space = header.indexOf(' ')
    const scheme = space > 0 ? header.slice(0, space).toLowerCase() : header.toLowerCase()
    const value = space > 0 ? header.slice(space + 1).trim() : ''
    if (scheme === 'bearer' && value) {
      try {
        request.tenant = await deps.tokens.verifyAccessToken(value)
        return
      } catch (e) {
        if (e instanceof InvalidTokenError) return refuse(reply, e.message, e.oauthError, allowBasic)
        throw e
      }
    }
    if (scheme === 'basic' && deps.basic) {
      const check = await checkClientCredentials(
        { clients: deps.clients, limiter: deps.basic.limiter },
        parseBasicAuth(header),
        request.ip,
      )
      if (check.outcome === 'limited') {
        reply.header('retry-after', String(check.retryAfterSeconds))
        return sendError(reply, request, 'RATE_LIMITED', {
          description: `Too many failed attempts; retry in ${check.retryAfterSeconds} s.`,
        })
      }
      if (check.outcome === 'invalid') return refuse(reply, 'Invalid client credentials.', 'invalid_token', allowBasic)
      request.tenant = {
        clientId: check.client.clientId,
        subId: check.client.subId,
        scope: API_SCOPE,
        tokenId: '',
        expiresAt: new Date(8.64e15),
      }
      return
    }
    return refuse(
      reply,
      'Unsupported authorization scheme: send Authorization: Bearer <access token>.',
      'invalid_token',
      allowBasic,
    )
  }
}
