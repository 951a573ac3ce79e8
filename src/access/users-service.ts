import type { Db } from '../platform/db/database.js'
import { isUniqueViolation } from '../platform/db/errors.js'
import { type Executor, inTransaction } from '../platform/db/transaction.js'
import type { Clock } from '../platform/kit/clock.js'
import { AppError, invalid } from '../platform/kit/errors.js'
import type { IdGenerator } from '../platform/kit/ids.js'
import type { PasswordPool } from './model/password-pool.js'
import { generatePassword, hashPassword } from './model/passwords.js'
import { USER_ERRORS } from './model/user-errors.js'
import * as repo from './store/users.js'
import { deleteIdentitiesOf, hasBreakGlassAdmin, lockPasswordSignInOff } from './store/sso.js'
import type { CreateUser, UpdateUser, UserDetail } from './api/user-schemas.js'
import type { UserTable } from './store/user-tables.js'
import type { Updateable } from 'kysely'

export interface UsersServiceDeps {
  db: Db
  clock: Clock
  ids: IdGenerator
  /** Hashes run in the bounded pool, per subscription: an admin resetting passwords in a loop gets 429s, not the pool. */
  passwords: PasswordPool
  /** Which of `siteIds` are live sites of the subscription (the sites domain answers). */
  existingSiteIds(subId: string, siteIds: string[]): Promise<Set<string>>
  /** The subscription of this name, created when new (the auth domain owns subscriptions). */
  ensureSubscription(name: string): Promise<string>
}

export type UsersService = ReturnType<typeof createUsersService>

export const detailOf = (u: repo.UserRecord): UserDetail => ({
  userId: u.user_id,
  email: u.email,
  ...(u.name !== null ? { name: u.name } : {}),
  role: u.role,
  subscription: u.sub_id,
  ...(u.site_id !== null ? { siteId: u.site_id } : {}),
  status: u.status,
  ...(u.must_change_password ? { mustChangePassword: true } : {}),
  createdAt: u.created_at.toISOString(),
  updatedAt: u.updated_at.toISOString(),
})

export function createUsersService(deps: UsersServiceDeps) {
  const { db, clock, ids } = deps

  async function checkSite(subId: string, siteId: string | null | undefined): Promise<void> {
    if (siteId === undefined || siteId === null) return
    if (!(await deps.existingSiteIds(subId, [siteId])).has(siteId))
      throw invalid('siteId', `siteId ${siteId} is not a site of this subscription`)
  }

  /**
   * While password sign-in is off, the last break-glass admin keeps that door (docs/sso.md,
   * "Break-glass"): a change that would close it is refused, naming the field that would.
   */
  async function keepBreakGlass(trx: Executor, subId: string, userId: string, field: string): Promise<void> {
    if (!(await lockPasswordSignInOff(trx, subId))) return
    // The user is the last one exactly when there is one break-glass admin and none besides them.
    if (!(await hasBreakGlassAdmin(trx, subId)) || (await hasBreakGlassAdmin(trx, subId, userId))) return
    throw invalid(
      field,
      `${field}: this is the last admin who may sign in with a password while password sign-in is off (the break-glass door); make another with mailroom users create|password first`,
    )
  }

  return {
    /** A new user; without a password one is generated and returned once (only its hash is kept). */
    async createUser(
      subId: string,
      input: CreateUser,
      fromCli = false,
    ): Promise<{ user: UserDetail; password?: string }> {
      await checkSite(subId, input.siteId)
      const generated = input.password === undefined ? generatePassword() : undefined
      const now = clock.now()
      const row = {
        user_id: ids('usr_'),
        sub_id: subId,
        email: input.email.trim(),
        name: input.name?.trim() || null,
        role: input.role,
        site_id: input.siteId ?? null,
        password_hash: await deps.passwords.run([`sub:${subId}`], () => hashPassword(input.password ?? generated!)),
        // A generated password was read off the admin's screen: the user chooses their own at first sign-in.
        must_change_password: generated !== undefined,
        // Set on the server: the break-glass password when SSO turns passwords off (sso-rules.ts).
        password_from_cli: fromCli,
        created_at: now,
        updated_at: now,
      }
      try {
        await repo.insertUser(db, row)
      } catch (e) {
        if (isUniqueViolation(e, 'users_email_key'))
          throw new AppError(USER_ERRORS.USER_EMAIL_EXISTS, { field: 'email' })
        throw e
      }
      const {
        password_hash: _,
        password_from_cli: __,
        ...record
      } = { ...row, status: 'active' as const, disabled_at: null }
      return { user: detailOf(record), ...(generated ? { password: generated } : {}) }
    },

    /** `mailroom users create`: the same, in the subscription of this name (created when new). */
    async createUserIn(subscription: string, input: CreateUser) {
      return this.createUser(await deps.ensureSubscription(subscription), input, true)
    },

    listUsers: async (subId: string): Promise<UserDetail[]> => (await repo.listUsers(db, subId)).map(detailOf),

    /** Every user of the installation, with its subscription's name (the CLI). */
    listAllUsers: async () => repo.listAllUsers(db),

    /** Changes what is given; disabling also ends every session of the user at once. */
    async updateUser(subId: string, userId: string, input: UpdateUser): Promise<UserDetail> {
      await checkSite(subId, input.siteId)
      const now = clock.now()
      const change: Updateable<UserTable> = { updated_at: now }
      if (input.role !== undefined) change.role = input.role
      // A demoted admin is no break-glass admin any more, and promoting them again does not make
      // them one: only the CLI on the server sets that password (docs/sso.md, "Break-glass").
      if (input.role === 'clerk') change.password_from_cli = false
      if (input.name !== undefined) change.name = input.name?.trim() || null
      if (input.siteId !== undefined) change.site_id = input.siteId
      if (input.disabled !== undefined) {
        change.status = input.disabled ? 'disabled' : 'active'
        change.disabled_at = input.disabled ? now : null
      }
      const updated = await inTransaction(db, async (trx) => {
        if (input.role === 'clerk') await keepBreakGlass(trx, subId, userId, 'role')
        if (input.disabled) await keepBreakGlass(trx, subId, userId, 'disabled')
        const row = await repo.updateUser(trx, subId, userId, change)
        if (row && input.disabled) await repo.deleteSessionsOf(trx, userId)
        return row
      })
      if (!updated) throw new AppError(USER_ERRORS.USER_NOT_FOUND)
      return detailOf(updated)
    },

    /**
     * A new password (generated and returned once when none is given): the forgotten-password case
     * at a desk. Every session of the user ends, so whoever knew the old one is signed out, and the
     * identities recorded at the provider are forgotten: the next single sign-on records its own.
     */
    async resetPassword(
      subId: string,
      userId: string,
      password?: string,
      fromCli = false,
    ): Promise<{ password?: string }> {
      const generated = password === undefined ? generatePassword() : undefined
      const password_hash = await deps.passwords.run([`sub:${subId}`], () => hashPassword(password ?? generated!))
      const found = await inTransaction(db, async (trx) => {
        if (!fromCli) await keepBreakGlass(trx, subId, userId, 'password')
        const row = await repo.updateUser(trx, subId, userId, {
          password_hash,
          must_change_password: generated !== undefined,
          // An admin's reset through the API is no break-glass password; the CLI's is.
          password_from_cli: fromCli,
          updated_at: clock.now(),
        })
        if (row) await repo.deleteSessionsOf(trx, userId)
        // Also the way out of identity_mismatch when the provider's account was made anew (docs/sso.md).
        if (row) await deleteIdentitiesOf(trx, userId)
        return row
      })
      if (!found) throw new AppError(USER_ERRORS.USER_NOT_FOUND)
      return generated ? { password: generated } : {}
    },

    /** `mailroom users password ID`: any subscription's user; undefined when there is none. */
    async resetPasswordOf(userId: string, password?: string): Promise<{ password?: string } | undefined> {
      const user = await repo.findUserById(db, userId)
      return user ? this.resetPassword(user.sub_id, userId, password, true) : undefined
    },

    /** `mailroom users disable|enable ID`: any subscription's user; false when there is none. */
    async setDisabled(userId: string, disabled: boolean): Promise<boolean> {
      const user = await repo.findUserById(db, userId)
      if (!user) return false
      await this.updateUser(user.sub_id, userId, { disabled })
      return true
    },
  }
}
