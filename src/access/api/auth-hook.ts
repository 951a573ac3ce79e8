import type { FastifyReply, FastifyRequest, HookHandlerDoneFunction, onRequestHookHandler } from 'fastify'
import type { ClientsService } from '../clients-service.js'
import type { FailureLimiter } from '../model/failure-limiter.js'
import { API_SCOPE, InvalidTokenError, type Tenant, type TokensService } from '../tokens-service.js'
import { checkClientCredentials } from '../model/credential-check.js'
import { parseBasicAuth } from '../model/basic-auth.js'
import { sendError } from '../../platform/http/error-handler.js'
import { isSafeMethod } from '../../platform/http/safe-methods.js'
import type { SessionsService } from '../sessions-service.js'
import { csrfMatches, type SessionUser } from '../model/sessions.js'
import { CSRF_HEADER, CSRF_MESSAGE, PASSWORD_CHANGE_REQUIRED, sessionCookieOf } from '../model/session-cookie.js'

declare module 'fastify' {
  interface FastifyRequest {
    /** The verified caller; set by the auth hook on every protected route. */
    tenant: Tenant
    /** The signed-in console user when the session cookie authenticated the request; null for API clients. */
    user: SessionUser | null
  }
}

export interface AuthHookDeps {
  tokens: TokensService
  clients: ClientsService
  /** The webhook interface also takes client credentials directly (CONTRACT §4). */
  basic?: { limiter: FailureLimiter }
  /** Console sessions: a request with no Authorization header but the session cookie is its user's. */
  sessions?: SessionsService
  /** The service's public URL: over HTTPS only the `__Host-` session cookie is read (users/session-cookie.ts). */
  publicUrl: string
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
    const cookie = header === undefined && deps.sessions ? sessionCookieOf(request, deps.publicUrl) : undefined
    if (cookie !== undefined && deps.sessions) return authenticateSession(deps.sessions, cookie, request, reply)
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

/**
 * The session cookie: the user's subscription is the tenant, as a token of one of its clients would
 * make it, and `request.user` names the person. A write must carry the session's CSRF token: the
 * cookie goes with any request the browser makes, the header only with the console's own.
 */
async function authenticateSession(
  sessions: SessionsService,
  cookie: string,
  request: FastifyRequest,
  reply: FastifyReply,
): Promise<unknown> {
  const session = await sessions.resolve(cookie)
  if (!session) return refuse(reply, 'Not signed in, or the session has expired: sign in again.', 'invalid_token')
  // Every write with cookie auth needs the session's X-CSRF-Token (synchronizer token).
  if (!isSafeMethod(request.method) && !csrfMatches(session.csrfToken, request.headers[CSRF_HEADER]))
    return reply.code(403).send({ message: CSRF_MESSAGE })
  // A generated password not yet changed: authenticated, but allowed nothing until the user chooses their own.
  if (session.user.mustChangePassword) return reply.code(403).send({ message: PASSWORD_CHANGE_REQUIRED })
  request.user = session.user
  request.tenant = {
    clientId: session.user.userId,
    subId: session.user.subId,
    scope: API_SCOPE,
    // No token: like HTTP Basic, checked on every request (access/api/session.ts shows no expiry for '').
    tokenId: '',
    expiresAt: session.expiresAt,
  }
  return undefined
}
