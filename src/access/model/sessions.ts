import { timingSafeEqual } from 'node:crypto'
import type { Role } from '../store/user-tables.js'

// What a console session is, as the sessions service, the auth hook and the console's routes see it.

/** The signed-in person, as the auth hook sets it on `request.user`. */
export interface SessionUser {
  userId: string
  email: string
  name: string | null
  role: Role
  subId: string
  /** A clerk limited to this site and the sites below it; null: the whole subscription. */
  siteId: string | null
  /** A generated password not yet changed: the session may only change it or sign out. */
  mustChangePassword: boolean
}

export interface ActiveSession {
  user: SessionUser
  /** The public id (lists, DELETE /console/api/sessions/{sessionId}); never the cookie or its hash. */
  sessionId: string
  csrfToken: string
  expiresAt: Date
}

export type SignIn =
  | { outcome: 'ok'; session: ActiveSession; cookieValue: string; deviceCookie: string }
  | { outcome: 'limited'; retryAfterSeconds: number }
  | { outcome: 'invalid' }

/** A request of the console's own API, as far as its session goes. */
export type Authorized =
  { outcome: 'ok'; session: ActiveSession; cookieValue: string } | { outcome: 'signed-out' } | { outcome: 'csrf' }

/** One session of the signed-in user, as GET /console/api/sessions lists it. */
export interface SessionInfo {
  sessionId: string
  createdAt: string
  lastSeenAt: string
  userAgent?: string
  current: boolean
}

/** The synchronizer token of a session against the X-CSRF-Token header, in constant time. */
export function csrfMatches(expected: string, given: unknown): boolean {
  if (typeof given !== 'string') return false
  const a = Buffer.from(expected, 'utf8')
  const b = Buffer.from(given, 'utf8')
  return a.length === b.length && timingSafeEqual(a, b)
}
