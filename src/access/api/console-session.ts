import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { Type } from '@sinclair/typebox'
import type { FastifyReply, FastifyRequest, onRequestHookHandler } from 'fastify'
import { sendError } from '../../platform/http/error-handler.js'
import type { SessionsService } from '../sessions-service.js'
import type { ActiveSession } from '../model/sessions.js'
import {
  clearSessionCookie,
  CSRF_HEADER,
  CSRF_MESSAGE,
  PASSWORD_CHANGE_REQUIRED,
  deviceCookieOf,
  sessionCookieOf,
  setDeviceCookie,
  setSessionCookie,
} from '../model/session-cookie.js'
import {
  ChangePasswordSchema,
  SessionIdParams,
  SessionListSchema,
  SessionSchema,
  SignInSchema,
  type ConsoleUser,
} from './user-schemas.js'

declare module 'fastify' {
  interface FastifyRequest {
    /** The console session of a /console/api route that needs one (set by its onRequest hook). */
    consoleSession: { session: ActiveSession; cookieValue: string } | null
  }
}

const tags = ['console']
const security = [{ sessionCookie: [] }]
const INVALID = 'Wrong email or password.'
const SIGNED_OUT = 'Not signed in, or the session has expired: sign in again.'
const COOKIE_NAMES =
  'the session cookie (`__Host-mailroom_session` over HTTPS, `mailroom_session` over plain HTTP, where browsers refuse the `__Host-` prefix)'
/** The sign-in throttle (issue 26.4–6), as docs/guessing-limits.md explains it. */
const GUESSING_POLICY = [
  'Guessing is limited per attempt, each counted before the password is checked (a burst of concurrent wrong attempts gets at most the limit checked, the rest 429): per email from one address (`TOKEN_FAILURE_LIMIT` failures per `TOKEN_FAILURE_WINDOW_SECONDS`), per address across emails (5 times that), and per email from everywhere (100 times that). Past a limit, 429 with Retry-After, even for the right password; each further lock of a key lasts twice the one before.',
  'A successful sign-in also sets a device cookie (`mailroom_device`, `__Secure-mailroom_device` over HTTPS; HttpOnly, SameSite=Strict, Path=/console/api/session, 180 days), signed for that email. A sign-in that presents it counts its failures on that browser alone, so failures of others, from any number of addresses, never lock the user out of a browser they signed in from before.',
  'Password checks run in a bounded pool with a share per address and per subscription: past it, 429 with `Retry-After: 1` before anything is counted.',
].join('\n\n')
const errorBody = (description: string) => Type.Ref('ErrorBody', { description })
const signedOut = Type.Ref('Unauthorized', { description: SIGNED_OUT })
const csrfRefused = Type.Ref('Unauthorized', { description: 'X-CSRF-Token is missing or is not the session’s.' })
const passwordFirst = Type.Ref('Unauthorized', {
  description: `${PASSWORD_CHANGE_REQUIRED} (the session's password was generated: see \`mustChangePassword\`).`,
})

const userOf = (s: ActiveSession): ConsoleUser => ({
  userId: s.user.userId,
  email: s.user.email,
  ...(s.user.name !== null ? { name: s.user.name } : {}),
  role: s.user.role,
  subscription: s.user.subId,
  ...(s.user.siteId !== null ? { siteId: s.user.siteId } : {}),
})
/** What the console needs of its session: who, the CSRF token, whether a password change comes first, and when it ends. */
const bodyOf = (sessions: SessionsService, s: ActiveSession) => ({
  user: userOf(s),
  csrfToken: s.csrfToken,
  mustChangePassword: s.user.mustChangePassword,
  idleSeconds: sessions.idleSeconds,
  expiresInSeconds: sessions.expiresInSeconds(s),
})

const unauthorized = (reply: FastifyReply, message: string) =>
  reply.code(401).header('www-authenticate', 'Cookie realm="mailroom console"').send({ message })

/** The session a route's onRequest hook found; only routes with that hook read it. */
const sessionOf = (request: FastifyRequest) => request.consoleSession!

/**
 * The console's own API (issue 18): `POST /session` signs in with email and password and sets the
 * session cookie, `GET` says who is signed in, `DELETE` signs out; the signed-in user changes their
 * password and lists and ends their sessions. The rules are the sessions service's; the cookie then
 * authenticates the public API too (http/auth-hook.ts), with X-CSRF-Token on every write.
 */
export const consoleSessionRoutes: FastifyPluginAsyncTypebox<{ sessions: SessionsService; publicUrl: string }> = async (
  app,
  { sessions, publicUrl },
) => {
  app.decorateRequest('consoleSession', null)

  /** The cookie's live session (and the CSRF token on writes) before the body is read: else 401 / 403. */
  const requireSession =
    (clearWhenSignedOut = false, beforePasswordChange = false): onRequestHookHandler =>
    async (request, reply) => {
      const found = await sessions.authorize(
        sessionCookieOf(request, publicUrl),
        request.method,
        request.headers[CSRF_HEADER],
      )
      switch (found.outcome) {
        case 'ok':
          // A generated password: the session may read itself, change the password and sign out, nothing else.
          if (found.session.user.mustChangePassword && !beforePasswordChange)
            return reply.code(403).send({ message: PASSWORD_CHANGE_REQUIRED })
          request.consoleSession = { session: found.session, cookieValue: found.cookieValue }
          return
        case 'signed-out':
          if (clearWhenSignedOut) clearSessionCookie(reply, request, publicUrl)
          return unauthorized(reply, SIGNED_OUT)
        case 'csrf':
          return reply.code(403).send({ message: CSRF_MESSAGE })
        default:
          return found satisfies never
      }
    }

  app.post(
    '/session',
    {
      schema: {
        tags,
        summary: 'Sign in to the console',
        description: [
          `Email and password → ${COOKIE_NAMES}: HttpOnly, SameSite=Strict, Path=/, no Domain, Secure over HTTPS; and the CSRF token to send as \`X-CSRF-Token\` on writes.`,
          'A wrong email, a wrong password, a disabled user and a user whose subscription turned password sign-in off (docs/sso.md) get the same 401.',
          'When the password was generated by the server (a new user created without one, or an admin reset), `mustChangePassword` is true: until POST /console/api/session/password sets the user’s own, every other request of the session, the public API’s included, is refused with 403 and the message “' +
            PASSWORD_CHANGE_REQUIRED +
            '”. GET and DELETE /console/api/session still answer.',
          GUESSING_POLICY,
        ].join('\n\n'),
        body: SignInSchema,
        response: {
          200: SessionSchema,
          401: Type.Ref('Unauthorized', { description: 'Wrong email or password.' }),
          400: errorBody('A missing or malformed field, named.'),
          415: errorBody('Not JSON.'),
          429: errorBody('Too many failed sign-ins, or too many password checks in progress; see Retry-After.'),
        },
      },
    },
    async (request, reply) => {
      const result = await sessions.signIn(request.body.email, request.body.password, {
        address: request.ip,
        userAgent: request.headers['user-agent'],
        previousCookie: sessionCookieOf(request, publicUrl),
        deviceCookie: deviceCookieOf(request, publicUrl),
      })
      switch (result.outcome) {
        case 'ok':
          setSessionCookie(reply, request, publicUrl, result.cookieValue)
          setDeviceCookie(reply, request, publicUrl, result.deviceCookie)
          return reply.header('cache-control', 'no-store').send(bodyOf(sessions, result.session))
        case 'limited':
          reply.header('retry-after', String(result.retryAfterSeconds))
          return sendError(reply, request, 'RATE_LIMITED', {
            description: `Too many failed sign-ins; retry in ${result.retryAfterSeconds} s.`,
          })
        case 'invalid':
          return unauthorized(reply, INVALID)
        default:
          return result satisfies never
      }
    },
  )

  app.get(
    '/session',
    {
      schema: {
        tags,
        security,
        summary: 'The signed-in user and the CSRF token of the session',
        response: { 200: SessionSchema, 401: signedOut },
      },
      onRequest: requireSession(false, true),
    },
    // The CSRF token is the session's: no cache keeps it.
    async (request, reply) =>
      reply.header('cache-control', 'no-store').send(bodyOf(sessions, sessionOf(request).session)),
  )

  app.delete(
    '/session',
    {
      schema: {
        tags,
        security,
        summary: 'Sign out',
        description: 'Ends the session on the server and clears the cookie. Needs `X-CSRF-Token`.',
        response: { 204: Type.Null({ description: 'Signed out.' }), 401: signedOut, 403: csrfRefused },
      },
      onRequest: requireSession(true, true),
    },
    async (request, reply) => {
      await sessions.signOut(sessionOf(request).cookieValue)
      clearSessionCookie(reply, request, publicUrl)
      return reply.code(204).send(null)
    },
  )

  app.post(
    '/session/password',
    {
      schema: {
        tags,
        security,
        summary: 'Change the signed-in user’s password',
        description: [
          'Needs `X-CSRF-Token`. `currentPassword` must be the user’s password (else 400 naming it; wrong guesses count with failed sign-ins, past the limit 429 with Retry-After); `newPassword` follows the rules of every password (10 to 200 characters) and differs from the current one (else 400 naming it).',
          'Every OTHER session of the user ends at once; this one stays signed in.',
        ].join('\n\n'),
        body: ChangePasswordSchema,
        response: {
          204: Type.Null({ description: 'Changed; the user’s other sessions are ended.' }),
          400: errorBody('`currentPassword` is wrong, or `newPassword` breaks the rules.'),
          401: signedOut,
          403: csrfRefused,
          415: errorBody('Not JSON.'),
          429: errorBody('Too many wrong passwords; see Retry-After.'),
        },
      },
      onRequest: requireSession(false, true),
    },
    async (request, reply) => {
      const { session, cookieValue } = sessionOf(request)
      await sessions.changePassword(cookieValue, session, { ...request.body, address: request.ip })
      return reply.code(204).send(null)
    },
  )

  app.get(
    '/sessions',
    {
      schema: {
        tags,
        security,
        summary: 'The signed-in user’s sessions',
        description: 'Every live session of the user (each browser signed in), newest first; `current` marks this one.',
        response: { 200: SessionListSchema, 401: signedOut, 403: passwordFirst },
      },
      onRequest: requireSession(),
    },
    async (request, reply) => {
      const { session, cookieValue } = sessionOf(request)
      return reply
        .header('cache-control', 'no-store')
        .send({ sessions: await sessions.listSessions(cookieValue, session) })
    },
  )

  app.delete(
    '/sessions/:sessionId',
    {
      schema: {
        tags,
        security,
        summary: 'End one of the signed-in user’s sessions',
        description:
          'Signs that browser out at once (a lost tablet). Needs `X-CSRF-Token`. Ending the current session signs out and clears the cookie. Another user’s session, or an unknown id, is a 404.',
        params: SessionIdParams,
        response: {
          204: Type.Null({ description: 'Ended.' }),
          400: errorBody('A malformed session id.'),
          401: signedOut,
          403: Type.Ref('Unauthorized', {
            description: `X-CSRF-Token is missing or is not the session’s; or: ${PASSWORD_CHANGE_REQUIRED}`,
          }),
          404: errorBody('The user has no such session.'),
        },
      },
      onRequest: requireSession(),
    },
    async (request, reply) => {
      const { current } = await sessions.endSession(sessionOf(request).session, request.params.sessionId)
      if (current) clearSessionCookie(reply, request, publicUrl)
      return reply.code(204).send(null)
    },
  )
}
