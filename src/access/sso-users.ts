import type { Logger } from 'pino'
import type { Db } from '../platform/db/database.js'
import { isUniqueViolation } from '../platform/db/errors.js'
import type { Clock } from '../platform/kit/clock.js'
import type { IdGenerator } from '../platform/kit/ids.js'
import type { PasswordPool } from './model/password-pool.js'
import { generatePassword, hashPassword } from './model/passwords.js'
import { decideSsoUser, ssoEmailOf, type SsoRefusal } from './model/sso-rules.js'
import * as repo from './store/sso.js'
import * as users from './store/users.js'

export interface SsoUsersDeps {
  db: Db
  clock: Clock
  ids: IdGenerator
  log: Logger
  passwords: PasswordPool
}

/** The claims of a validated id_token this needs: the provider's id for the person, and their email. */
export interface SsoIdentityClaims {
  iss: string
  sub: string
  email?: unknown
  email_verified?: unknown
}

type Resolved = { user: users.UserRecord } | { refused: SsoRefusal }

/**
 * Who a provider's answer signs in (the rules: model/sso-rules.ts `decideSsoUser`): the user its
 * (iss, sub) was recorded for, else the user of its email (then recorded), else a new user; and
 * what their first single sign-on changes (the identity recorded, a generated password made void).
 */
export function createSsoUsers(deps: SsoUsersDeps) {
  const { db, clock, log } = deps
  const hashRandom = (subId: string) => deps.passwords.run([`sub:${subId}`], () => hashPassword(generatePassword()))

  async function provision(subId: string, email: string, role: 'admin' | 'clerk'): Promise<users.UserRecord> {
    const now = clock.now()
    const row = {
      user_id: deps.ids('usr_'),
      sub_id: subId,
      email,
      name: null,
      role,
      site_id: null,
      // No password anyone knows: a hash of a random one, so a password guess takes as long as for anyone.
      password_hash: await hashRandom(subId),
      created_at: now,
      updated_at: now,
    }
    await users.insertUser(db, row)
    return { ...row, status: 'active', disabled_at: null, must_change_password: false }
  }

  /** The user of `email`, found again after a concurrent first sign-in created them. */
  async function createdMeanwhile(subId: string, email: string): Promise<users.UserRecord | undefined> {
    const created = await users.findForSignIn(db, email)
    return created?.sub_id === subId && created.status === 'active' ? created : undefined
  }

  return {
    async resolve(s: repo.SsoSettingsRecord, claims: SsoIdentityClaims): Promise<Resolved> {
      const { iss: issuer, sub: subject } = claims
      const linkedId = await repo.findIdentityUser(db, issuer, subject)
      const linked = linkedId === undefined ? undefined : await users.findUserById(db, linkedId)
      const email = ssoEmailOf(claims.email)
      const byEmail = linked || email === undefined ? undefined : await users.findForSignIn(db, email)
      const recorded = byEmail && (await repo.findSubjectOf(db, byEmail.user_id, issuer))
      const known = (u: users.UserRecord) => ({ userId: u.user_id, subId: u.sub_id, status: u.status })
      const decision = decideSsoUser(
        claims,
        {
          subId: s.sub_id,
          domains: s.domains,
          provisionUsers: s.provision_users,
          defaultRole: s.default_role,
          requireVerifiedEmail: s.require_verified_email,
        },
        byEmail && { ...known(byEmail), ...(recorded !== undefined ? { subject: recorded } : {}) },
        linked && known(linked),
      )
      let user: users.UserRecord
      switch (decision.kind) {
        case 'refuse':
          return { refused: decision.reason }
        case 'sign-in':
          user = (linked ?? byEmail)!
          break
        case 'provision':
          try {
            user = await provision(s.sub_id, decision.email, decision.role)
            log.info({ subId: s.sub_id, userId: user.user_id }, 'single sign-on: user provisioned')
          } catch (e) {
            if (!isUniqueViolation(e, 'users_email_key')) throw e
            // The same new user signing in twice at once: the other request created them.
            const created = await createdMeanwhile(s.sub_id, decision.email)
            if (!created) return { refused: 'failed' }
            user = created
          }
          break
        default:
          return decision satisfies never
      }
      if (decision.kind !== 'sign-in' || decision.record) {
        const at = clock.now()
        // Lost to a concurrent first sign-in: fine if it recorded this same identity for this user.
        if (!(await repo.recordIdentity(db, { issuer, subject, user_id: user.user_id, created_at: at })))
          if ((await repo.findIdentityUser(db, issuer, subject)) !== user.user_id)
            return { refused: 'identity_mismatch' }
      }
      // A generated password is void once the provider vouched for the user: no one must change it first.
      // One set on the server is the break-glass password even before its first use: it stays.
      if (user.must_change_password)
        user =
          (await users.voidGeneratedPassword(db, user.user_id, {
            password_hash: await hashRandom(s.sub_id),
            updated_at: clock.now(),
          })) ?? user
      return { user }
    },
  }
}
