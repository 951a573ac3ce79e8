import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { Type } from '@sinclair/typebox'
import type { FastifyReply, FastifyRequest } from 'fastify'
import { sendError } from '../http/error-handler.js'
import { errorResponses } from '../http/schemas.js'
import { csrfMatches, type ActiveSession, type SessionsService } from './sessions.service.js'
import { clearSessionCookie, CSRF_HEADER, CSRF_MESSAGE, sessionCookieOf, setSessionCookie } from './session-cookie.js'
import { SessionSchema, SignInSchema, type ConsoleUser } from './users.schemas.js'

const tags = ['console']
const security = [{ sessionCookie: [] }]
const INVALID = 'Wrong email or password.'
const SIGNED_OUT = 'Not signed in, or the session has expired: sign in again.'

const userOf = (s: ActiveSession): ConsoleUser => ({
  userId: s.user.userId,
  email: s.user.email,
  ...(s.user.name !== null ? { name: s.user.name } : {}),
  role: s.user.role,
  subscription: s.user.subId,
  ...(s.user.siteId !== null ? { siteId: s.user.siteId } : {}),
})
const bodyOf = (s: ActiveSession) => ({ user: userOf(s), csrfToken: s.csrfToken })

const unauthorized = (reply: FastifyReply, message: string) =>
  reply.code(401).header('www-authenticate', 'Cookie realm="mailroom console"').send({ message })

/**
 * The console's sign-in (issue 18.2): `POST` signs in with email and password and sets the session
 * cookie, `GET` says who is signed in, `DELETE` signs out. The cookie then authenticates the public
 * API too (http/auth-hook.ts), with X-CSRF-Token on every write.
 */
export const consoleSessionRoutes: FastifyPluginAsyncTypebox<{ sessions: SessionsService; publicUrl: string }> = async (
  app,
  { sessions, publicUrl },
) => {
  const current = async (request: FastifyRequest) => {
    const value = sessionCookieOf(request)
    return value === undefined ? undefined : sessions.resolve(value)
  }

  app.post(
    '/session',
    {
      schema: {
        tags,
        summary: 'Sign in to the console',
        description: [
          'Email and password → the session cookie `mailroom_session` (HttpOnly, SameSite=Strict, Path=/, Secure over HTTPS) and the CSRF token to send as `X-CSRF-Token` on writes.',
          'A wrong email, a wrong password and a disabled user get the same 401. Failures are counted per email and per address: past the limit, 429 with Retry-After, even for the right password.',
        ].join('\n\n'),
        body: SignInSchema,
        response: {
          200: SessionSchema,
          401: Type.Ref('Unauthorized', { description: 'Wrong email or password.' }),
          ...errorResponses(400, 415, 429),
        },
      },
    },
    async (request, reply) => {
      const result = await sessions.signIn(request.body.email, request.body.password, request.ip)
      switch (result.outcome) {
        case 'ok': {
          // A sign-in over an open session replaces it: one browser, one session.
          const previous = sessionCookieOf(request)
          if (previous !== undefined) await sessions.signOut(previous)
          setSessionCookie(reply, request, publicUrl, result.cookieValue)
          return reply.header('cache-control', 'no-store').send(bodyOf(result.session))
        }
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
        response: { 200: SessionSchema, 401: Type.Ref('Unauthorized', { description: SIGNED_OUT }) },
      },
    },
    async (request, reply) => {
      const session = await current(request)
      if (!session) return unauthorized(reply, SIGNED_OUT)
      // The CSRF token is the session's: no cache keeps it.
      return reply.header('cache-control', 'no-store').send(bodyOf(session))
    },
  )

  app.delete(
    '/session',
    {
      schema: {
        tags,
        security,
        summary: 'Sign out',
        description: 'Ends the session on the server and clears the cookie. Needs `X-CSRF-Token`.',
        response: {
          204: Type.Null({ description: 'Signed out.' }),
          401: Type.Ref('Unauthorized', { description: SIGNED_OUT }),
          403: Type.Ref('Unauthorized', { description: 'X-CSRF-Token is missing or is not the session’s.' }),
        },
      },
    },
    async (request, reply) => {
      const value = sessionCookieOf(request)
      const session = value === undefined ? undefined : await sessions.resolve(value)
      if (!session || value === undefined) {
        clearSessionCookie(reply, request, publicUrl)
        return unauthorized(reply, SIGNED_OUT)
      }
      if (!csrfMatches(session.csrfToken, request.headers[CSRF_HEADER]))
        return reply.code(403).send({ message: CSRF_MESSAGE })
      await sessions.signOut(value)
      clearSessionCookie(reply, request, publicUrl)
      return reply.code(204).send(null)
    },
  )
}
