import { createHash, timingSafeEqual } from 'node:crypto'
import type { FailureLimiter } from '../auth/failure-limiter.js'
import type { Db } from '../db/database.js'
import type { Clock } from '../shared/clock.js'
import { randomToken } from '../shared/crypto.js'
import { verifyPassword } from './passwords.js'
import * as repo from './users.repo.js'
import type { Role } from './users.tables.js'

/** The signed-in person, as the auth hook sets it on `request.user`. */
export interface SessionUser {
  userId: string
  email: string
  name: string | null
  role: Role
  subId: string
  /** A clerk limited to this site and the sites below it; null: the whole subscription. */
  siteId: string | null
}

export interface ActiveSession {
  user: SessionUser
  csrfToken: string
  expiresAt: Date
}

export type SignIn =
  | { outcome: 'ok'; session: ActiveSession; cookieValue: string }
  | { outcome: 'limited'; retryAfterSeconds: number }
  | { outcome: 'invalid' }

export interface SessionsServiceDeps {
  db: Db
  clock: Clock
  /** The token endpoint's: one count of guesses per address whatever the door (see credential-check.ts). */
  limiter: FailureLimiter
  idleMinutes: number
  maxHours: number
}

export type SessionsService = ReturnType<typeof createSessionsService>

const hashOf = (cookieValue: string) => createHash('sha256').update(cookieValue, 'utf8').digest('hex')
// The limiter counts client ids; emails are keyed apart (an email holds '@', a client id never does).
const limiterKey = (email: string) => `user:${email.trim().toLowerCase()}`

/** The synchronizer token of a session against the X-CSRF-Token header, in constant time. */
export function csrfMatches(expected: string, given: unknown): boolean {
  if (typeof given !== 'string') return false
  const a = Buffer.from(expected, 'utf8')
  const b = Buffer.from(given, 'utf8')
  return a.length === b.length && timingSafeEqual(a, b)
}

/**
 * Console sessions, kept server-side: the cookie carries 256 random bits, the table their SHA-256 (a
 * high-entropy value needs no slow hash), so reading the table signs no one in. A session ends on
 * sign-out, after `idleMinutes` without a request (sliding), after `maxHours` whatever the activity,
 * and at once when its user is disabled.
 */
export function createSessionsService(deps: SessionsServiceDeps) {
  const { db, clock, limiter } = deps
  const idleMs = deps.idleMinutes * 60_000
  const maxMs = deps.maxHours * 3_600_000
  // Sliding the idle window costs a write; one per minute (or tenth of the window) is precise enough.
  const touchEveryMs = Math.min(60_000, idleMs / 10)

  const userOf = (u: repo.UserRecord): SessionUser => ({
    userId: u.user_id,
    email: u.email,
    name: u.name,
    role: u.role,
    subId: u.sub_id,
    siteId: u.site_id,
  })

  return {
    /**
     * Email and password → a new session. Unknown email, wrong password and disabled user are one
     * answer, in the same time; failures count per email and per address in the shared limiter.
     */
    async signIn(email: string, password: string, address: string): Promise<SignIn> {
      const key = limiterKey(email)
      const wait = await limiter.retryAfter(key, address)
      if (wait > 0) return { outcome: 'limited', retryAfterSeconds: wait }
      const row = await repo.findForSignIn(db, email.trim())
      const matches = await verifyPassword(row?.password_hash, password)
      if (!row || !matches || row.status !== 'active') {
        await limiter.recordFailure(key, address)
        return { outcome: 'invalid' }
      }
      await limiter.recordSuccess(key, address)
      const now = clock.now()
      // Each sign-in sweeps the sessions that ended: the table holds live sessions and few others.
      await repo.deleteExpiredSessions(db, now, new Date(now.getTime() - idleMs))
      const cookieValue = randomToken(32)
      const session = {
        session_hash: hashOf(cookieValue),
        user_id: row.user_id,
        csrf_token: randomToken(32),
        created_at: now,
        last_seen_at: now,
        expires_at: new Date(now.getTime() + maxMs),
      }
      await repo.insertSession(db, session)
      return {
        outcome: 'ok',
        cookieValue,
        session: { user: userOf(row), csrfToken: session.csrf_token, expiresAt: session.expires_at },
      }
    },

    /** The live session of a cookie value, its idle window slid; undefined when none (ended ones are deleted). */
    async resolve(cookieValue: string): Promise<ActiveSession | undefined> {
      if (cookieValue.length === 0 || cookieValue.length > 200) return undefined
      const hash = hashOf(cookieValue)
      const found = await repo.findSession(db, hash)
      if (!found) return undefined
      const { session, user } = found
      const now = clock.now().getTime()
      const ended =
        now >= session.expires_at.getTime() ||
        now - session.last_seen_at.getTime() >= idleMs ||
        user.status !== 'active'
      if (ended) {
        await repo.deleteSession(db, hash)
        return undefined
      }
      if (now - session.last_seen_at.getTime() >= touchEveryMs) await repo.touchSession(db, hash, new Date(now))
      return { user: userOf(user), csrfToken: session.csrf_token, expiresAt: session.expires_at }
    },

    async signOut(cookieValue: string): Promise<void> {
      await repo.deleteSession(db, hashOf(cookieValue))
    },
  }
}
