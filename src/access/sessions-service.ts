import { createHash } from 'node:crypto'
import { deviceOf, withDevice } from './model/device-cookie.js'
import type { Attempt, FailureLimiter, Ticket } from './model/failure-limiter.js'
import type { PasswordPool } from './model/password-pool.js'
import type { Db } from '../platform/db/database.js'
import { inTransaction } from '../platform/db/transaction.js'
import type { Clock } from '../platform/kit/clock.js'
import { randomToken } from '../platform/kit/crypto.js'
import { AppError, invalid } from '../platform/kit/errors.js'
import { newId } from '../platform/kit/ids.js'
import { isSafeMethod } from '../platform/http/safe-methods.js'
import { hashPassword, verifyPassword } from './model/passwords.js'
import { USER_ERRORS } from './model/user-errors.js'
import * as repo from './store/users.js'
import { passwordSignInAllowed } from './model/sso-rules.js'
import { passwordSignInOff } from './store/sso.js'
import type { UserSessionRow } from './store/user-tables.js'
import {
  csrfMatches,
  type ActiveSession,
  type Authorized,
  type SessionInfo,
  type SessionUser,
  type SignIn,
} from './model/sessions.js'

export interface SessionsServiceDeps {
  db: Db
  clock: Clock
  /** The token endpoint's: one count of guesses per address whatever the door (see credential-check.ts). */
  limiter: FailureLimiter
  /** Where every password hash runs: bounded, per address and per subscription. */
  passwords: PasswordPool
  /** Signs the device cookies that let a browser signed in before pass the email's global throttle. */
  deviceKey: Buffer
  idleMinutes: number
  maxHours: number
}

export type SessionsService = ReturnType<typeof createSessionsService>

// Enough to tell browsers apart; a longer header is cut, not refused (sign-in must not fail on it).
const USER_AGENT_MAX = 256

/** The idle window is slid (last_seen_at written) at most this often per session. */
const TOUCH_EVERY_MS = 5 * 60_000

/**
 * Deletes the sessions past their absolute end (housekeeping's pass): reads never delete, and a
 * session ended by idleness is refused on read and swept by the next sign-in, or here once its
 * absolute end passes.
 */
export async function purgeEndedSessions(db: Db, clock: Clock): Promise<number> {
  const now = clock.now()
  // The absolute end only: the idle window is a setting this pass does not know.
  return repo.deleteExpiredSessions(db, now, new Date(0))
}

const hashOf = (cookieValue: string) => createHash('sha256').update(cookieValue, 'utf8').digest('hex')
// The limiter counts client ids; emails are keyed apart (an email holds '@', a client id never does).
const limiterKey = (email: string) => `user:${email.trim().toLowerCase()}`
// The pool's keys: a flood from one address, or against one subscription's users, takes only its own places.
const poolKeys = (address: string, subId: string | undefined) => [`address:${address}`, `sub:${subId ?? '(unknown)'}`]

/**
 * Console sessions, kept server-side: the cookie carries 256 random bits, the table their SHA-256 (a
 * high-entropy value needs no slow hash), so reading the table signs no one in. A session ends on
 * sign-out, after `idleMinutes` without a request (sliding), after `maxHours` whatever the activity,
 * at once when its user is disabled or given a new password, when the user changes their password
 * in another session, and when the user ends it by its public id from another one.
 */
export function createSessionsService(deps: SessionsServiceDeps) {
  const { db, clock, limiter } = deps
  const idleMs = deps.idleMinutes * 60_000
  const maxMs = deps.maxHours * 3_600_000
  // Sliding the idle window costs a write: at most one per TOUCH_EVERY_MS (a sixth of a shorter
  // window) per session, so a console's reads write nearly nothing (issue 26.7). The price: a
  // session may end up to that long before `idleMinutes` after its last request.
  const touchEveryMs = Math.min(TOUCH_EVERY_MS, idleMs / 6)

  /** A password check in the pool; refused there (429), the admitted attempt goes back uncounted. */
  async function checkPassword(ticket: Ticket, keys: string[], check: () => Promise<boolean>): Promise<boolean> {
    try {
      return await deps.passwords.run(keys, check)
    } catch (e) {
      await limiter.release(ticket)
      throw e
    }
  }

  const userOf = (u: repo.UserRecord): SessionUser => ({
    userId: u.user_id,
    email: u.email,
    name: u.name,
    role: u.role,
    subId: u.sub_id,
    siteId: u.site_id,
    mustChangePassword: u.must_change_password,
  })
  const activeOf = (
    u: repo.UserRecord,
    s: Pick<UserSessionRow, 'session_id' | 'csrf_token' | 'expires_at'>,
  ): ActiveSession => ({ user: userOf(u), sessionId: s.session_id, csrfToken: s.csrf_token, expiresAt: s.expires_at })

  /**
   * A new session of a user whose identity was proved (a password here, or the identity provider's
   * id_token in sso-service.ts): it replaces the browser's open one, and sweeps ended sessions.
   */
  async function openSession(
    user: repo.UserRecord,
    from: { userAgent?: string; previousCookie?: string },
  ): Promise<{ session: ActiveSession; cookieValue: string }> {
    const now = clock.now()
    // A sign-in over an open session replaces it: one browser, one session.
    if (from.previousCookie !== undefined) await repo.deleteSession(db, hashOf(from.previousCookie))
    // Each sign-in sweeps the sessions that ended: the table holds live sessions and few others.
    await repo.deleteExpiredSessions(db, now, new Date(now.getTime() - idleMs))
    const cookieValue = randomToken(32)
    const session = {
      session_hash: hashOf(cookieValue),
      session_id: newId('ses_'),
      user_agent: from.userAgent?.slice(0, USER_AGENT_MAX) || null,
      user_id: user.user_id,
      csrf_token: randomToken(32),
      created_at: now,
      last_seen_at: now,
      expires_at: new Date(now.getTime() + maxMs),
    }
    await repo.insertSession(db, session)
    return { cookieValue, session: activeOf(user, session) }
  }

  return {
    /**
     * The idle time a session is sure to survive: the idle window less the renewal step (a request
     * renews it only every `touchEveryMs`), so the console warns before the real end, never after.
     */
    idleSeconds: Math.floor((idleMs - touchEveryMs) / 1000),
    /** Seconds left before the session's absolute end, by the service's clock. */
    expiresInSeconds: (s: ActiveSession) =>
      Math.max(0, Math.floor((s.expiresAt.getTime() - clock.now().getTime()) / 1000)),

    /**
     * Email and password → a new session. Unknown email, wrong password and disabled user are one
     * answer, in the same time. Each attempt is counted before the password is checked (limiter),
     * per email and address, per address and per email everywhere; a browser holding a device cookie
     * of an earlier sign-in of this email counts on that device alone (device-cookie.ts). The hash
     * runs in the bounded pool (password-pool.ts): past its bounds, 429 before anything is counted.
     */
    async signIn(
      email: string,
      password: string,
      from: { address: string; userAgent?: string; previousCookie?: string; deviceCookie?: string },
    ): Promise<SignIn> {
      const { address } = from
      const now = clock.now()
      const device = deviceOf(deps.deviceKey, from.deviceCookie, email, now.getTime())
      const row = await repo.findForSignIn(db, email.trim())
      const keys = poolKeys(address, row?.sub_id)
      // A flood is refused here, before it is counted or costs a hash.
      deps.passwords.refuseIfFull(keys)
      const admission = await limiter.admit({ identity: limiterKey(email), address, device })
      if (!admission.admitted) return { outcome: 'limited', retryAfterSeconds: admission.retryAfterSeconds }
      const matches = await checkPassword(admission.ticket, keys, () => verifyPassword(row?.password_hash, password))
      // Password sign-in turned off (docs/sso.md) answers as a wrong password does, counted as a
      // failure: a different answer for the right password would make the door a password oracle.
      const refused =
        !row ||
        !matches ||
        row.status !== 'active' ||
        !passwordSignInAllowed(await passwordSignInOff(db, row.sub_id), {
          role: row.role,
          passwordFromCli: row.password_from_cli,
        })
      if (refused) {
        await limiter.failed(admission.ticket)
        return { outcome: 'invalid' }
      }
      await limiter.succeeded(admission.ticket)
      return {
        outcome: 'ok',
        ...(await openSession(row, from)),
        deviceCookie: withDevice(deps.deviceKey, from.deviceCookie, email, now.getTime()),
      }
    },

    openSession,

    /**
     * The live session of a cookie value, its idle window slid (written at most once per
     * `touchEveryMs`); undefined when none. An ended session is refused, not deleted: a read writes
     * nothing, and housekeeping (purgeEndedSessions) and the next sign-in sweep ended sessions.
     */
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
      if (ended) return undefined
      if (now - session.last_seen_at.getTime() >= touchEveryMs) await repo.touchSession(db, hash, new Date(now))
      return activeOf(user, session)
    },

    /**
     * The console API's own check: the cookie's live session, and for a write the session's
     * X-CSRF-Token (the cookie goes with any request the browser makes, the header only with the
     * console's own), as the auth hook checks them on the public API.
     */
    async authorize(cookieValue: string | undefined, method: string, csrfHeader: unknown): Promise<Authorized> {
      const session = cookieValue === undefined ? undefined : await this.resolve(cookieValue)
      if (!session || cookieValue === undefined) return { outcome: 'signed-out' }
      if (!isSafeMethod(method) && !csrfMatches(session.csrfToken, csrfHeader)) return { outcome: 'csrf' }
      return { outcome: 'ok', session, cookieValue }
    },

    async signOut(cookieValue: string): Promise<void> {
      await repo.deleteSession(db, hashOf(cookieValue))
    },

    /** The user's live sessions, newest first, the one making the request marked `current`. */
    async listSessions(cookieValue: string, session: ActiveSession): Promise<SessionInfo[]> {
      const now = clock.now()
      const current = hashOf(cookieValue)
      const rows = await repo.listLiveSessions(db, session.user.userId, now, new Date(now.getTime() - idleMs))
      return rows.map((r) => ({
        sessionId: r.session_id,
        createdAt: r.created_at.toISOString(),
        lastSeenAt: r.last_seen_at.toISOString(),
        ...(r.user_agent !== null ? { userAgent: r.user_agent } : {}),
        current: r.session_hash === current,
      }))
    },

    /** Ends one of the user's sessions (a lost tablet); another user's, or none, is not found. Says whether it was this one. */
    async endSession(session: ActiveSession, sessionId: string): Promise<{ current: boolean }> {
      if (!(await repo.deleteSessionById(db, session.user.userId, sessionId)))
        throw new AppError(USER_ERRORS.SESSION_NOT_FOUND, { field: 'sessionId' })
      return { current: sessionId === session.sessionId }
    },

    /**
     * The signed-in user's own password: the current one must match (guesses count in the sign-in
     * limiter, so a borrowed session cannot try passwords faster than the sign-in page), the new one
     * follows the rules of passwords.ts (the schema) and differs from the current one. Every OTHER
     * session of the user ends: whoever else knew the old password is signed out, this browser stays.
     */
    async changePassword(
      cookieValue: string,
      session: ActiveSession,
      input: { currentPassword: string; newPassword: string; address: string },
    ): Promise<void> {
      const attempt: Attempt = { identity: limiterKey(session.user.email), address: input.address }
      const keys = poolKeys(input.address, session.user.subId)
      deps.passwords.refuseIfFull(keys)
      const admission = await limiter.admit(attempt)
      if (!admission.admitted)
        throw new AppError('RATE_LIMITED', {
          description: `Too many wrong passwords; retry in ${admission.retryAfterSeconds} s.`,
          headers: { 'retry-after': String(admission.retryAfterSeconds) },
        })
      const stored = await repo.findPasswordHash(db, session.user.userId)
      if (!(await checkPassword(admission.ticket, keys, () => verifyPassword(stored, input.currentPassword)))) {
        await limiter.failed(admission.ticket)
        throw invalid('currentPassword', 'currentPassword is not the password of the signed-in user')
      }
      await limiter.succeeded(admission.ticket)
      if (input.newPassword === input.currentPassword)
        throw invalid('newPassword', 'newPassword must differ from the current password')
      const password_hash = await deps.passwords.run(keys, () => hashPassword(input.newPassword))
      await inTransaction(db, async (trx) => {
        await repo.updateUser(trx, session.user.subId, session.user.userId, {
          password_hash,
          must_change_password: false,
          updated_at: clock.now(),
        })
        await repo.deleteOtherSessions(trx, session.user.userId, hashOf(cookieValue))
      })
    },
  }
}
