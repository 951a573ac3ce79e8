import type { FastifyReply, FastifyRequest } from 'fastify'
import type { CookieSerializeOptions } from '@fastify/cookie'
import { DEVICE_COOKIE_DAYS } from './device-cookie.js'

/** The session cookie's name over plain HTTP (browsers refuse a `__Host-` cookie that is not Secure). */
export const SESSION_COOKIE = 'mailroom_session'
/**
 * Its name over HTTPS. The `__Host-` prefix (RFC 6265bis §4.1.3.2) makes the browser accept the
 * cookie only when it is Secure, has Path=/ and no Domain, and was set by a secure origin: a sibling
 * host or a plain-HTTP page of the same name cannot plant or overwrite it (session fixation).
 */
export const SECURE_SESSION_COOKIE = `__Host-${SESSION_COOKIE}`
export const CSRF_HEADER = 'x-csrf-token'
export const CSRF_MESSAGE =
  'Missing or wrong X-CSRF-Token header: a write made with the session cookie must send the csrfToken of GET /console/api/session.'
/** The 403 of every request of a session whose generated password has not been changed yet (issue 25.6). */
export const PASSWORD_CHANGE_REQUIRED =
  'Choose your own password first: the one you signed in with was generated. POST /console/api/session/password changes it.'

/** Whether the service is reached over HTTPS: its public URL says so, or this request came over TLS (directly or through a trusted proxy). */
const overHttps = (request: FastifyRequest, publicUrl: string) =>
  publicUrl.startsWith('https:') || request.protocol === 'https'

/**
 * HttpOnly (no script reads it), SameSite=Strict (no other site's page sends it), the whole host's
 * path (the console and the API it calls) and no Domain (this host only; `__Host-` requires both),
 * Secure whenever the service is reached over HTTPS.
 */
function cookieOf(request: FastifyRequest, publicUrl: string): { name: string; options: CookieSerializeOptions } {
  const secure = overHttps(request, publicUrl)
  return {
    name: secure ? SECURE_SESSION_COOKIE : SESSION_COOKIE,
    options: { httpOnly: true, sameSite: 'strict', path: '/', secure },
  }
}

export function setSessionCookie(reply: FastifyReply, request: FastifyRequest, publicUrl: string, value: string) {
  const { name, options } = cookieOf(request, publicUrl)
  reply.setCookie(name, value, options)
}

export function clearSessionCookie(reply: FastifyReply, request: FastifyRequest, publicUrl: string) {
  const { name, options } = cookieOf(request, publicUrl)
  reply.clearCookie(name, options)
}

/**
 * The session cookie of a request: the `__Host-` one when the browser sent it (it can only have come
 * from this host over HTTPS), else the plain one, except when the service is reached over HTTPS (its
 * public URL, or this request over TLS): there it only ever sets the `__Host-` one, and a plain cookie
 * may have been planted by a sibling host or a plain-HTTP page. The cookie read is the one set.
 */
export const sessionCookieOf = (request: FastifyRequest, publicUrl: string): string | undefined =>
  request.cookies[SECURE_SESSION_COOKIE] ??
  (overHttps(request, publicUrl) ? undefined : request.cookies[SESSION_COOKIE])

/**
 * The device cookie (device-cookie.ts): sent only to the sign-in route, kept across sign-outs for
 * DEVICE_COOKIE_DAYS. `__Secure-` over HTTPS (the browser keeps it only when Secure; `__Host-`
 * would need Path=/, and no other route needs it).
 */
const DEVICE_COOKIE = 'mailroom_device'
const DEVICE_PATH = '/console/api/session'

function deviceCookieName(request: FastifyRequest, publicUrl: string): string {
  return overHttps(request, publicUrl) ? `__Secure-${DEVICE_COOKIE}` : DEVICE_COOKIE
}

export function setDeviceCookie(reply: FastifyReply, request: FastifyRequest, publicUrl: string, value: string) {
  reply.setCookie(deviceCookieName(request, publicUrl), value, {
    httpOnly: true,
    sameSite: 'strict',
    path: DEVICE_PATH,
    secure: overHttps(request, publicUrl),
    maxAge: DEVICE_COOKIE_DAYS * 86_400,
  })
}

export const deviceCookieOf = (request: FastifyRequest, publicUrl: string): string | undefined =>
  request.cookies[deviceCookieName(request, publicUrl)]
