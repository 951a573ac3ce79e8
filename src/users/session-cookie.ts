import type { FastifyReply, FastifyRequest } from 'fastify'
import type { CookieSerializeOptions } from '@fastify/cookie'

export const SESSION_COOKIE = 'mailroom_session'
export const CSRF_HEADER = 'x-csrf-token'
export const CSRF_MESSAGE =
  'Missing or wrong X-CSRF-Token header: a write made with the session cookie must send the csrfToken of GET /console/api/session.'

/**
 * HttpOnly (no script reads it), SameSite=Strict (no other site's page sends it), the whole host's
 * path (the console and the API it calls), Secure whenever the service is reached over HTTPS: its
 * public URL says so, or this request came over TLS (directly or through a trusted proxy).
 */
function cookieOptions(request: FastifyRequest, publicUrl: string): CookieSerializeOptions {
  return {
    httpOnly: true,
    sameSite: 'strict',
    path: '/',
    secure: publicUrl.startsWith('https:') || request.protocol === 'https',
  }
}

export function setSessionCookie(reply: FastifyReply, request: FastifyRequest, publicUrl: string, value: string) {
  reply.setCookie(SESSION_COOKIE, value, cookieOptions(request, publicUrl))
}

export function clearSessionCookie(reply: FastifyReply, request: FastifyRequest, publicUrl: string) {
  reply.clearCookie(SESSION_COOKIE, cookieOptions(request, publicUrl))
}

export const sessionCookieOf = (request: FastifyRequest): string | undefined => request.cookies[SESSION_COOKIE]
