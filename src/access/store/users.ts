import { sql, type Insertable, type Updateable } from 'kysely'
import type { Executor } from '../../platform/db/transaction.js'
import type { UserRow, UserSessionRow, UserTable } from './user-tables.js'

// Every column but the password hash: lists and sessions never carry it.
const USER_COLUMNS = [
  'users.user_id',
  'users.sub_id',
  'users.email',
  'users.name',
  'users.role',
  'users.site_id',
  'users.status',
  'users.created_at',
  'users.updated_at',
  'users.disabled_at',
  'users.must_change_password',
] as const

export type UserRecord = Omit<UserRow, 'password_hash' | 'password_from_cli'>
export type UserWithSubscription = UserRecord & { subscription: string }

export async function insertUser(db: Executor, row: Insertable<UserTable>): Promise<void> {
  await db.insertInto('users').values(row).execute()
}

/** The user of this email (case-insensitive) with the hash to verify, for sign-in only. */
export async function findForSignIn(
  db: Executor,
  email: string,
): Promise<(UserRecord & { password_hash: string; password_from_cli: boolean }) | undefined> {
  return db
    .selectFrom('users')
    .select([...USER_COLUMNS, 'users.password_hash', 'users.password_from_cli'])
    .where(sql<string>`lower(email)`, '=', email.toLowerCase())
    .executeTakeFirst()
}

export async function listUsers(db: Executor, subId: string): Promise<UserRecord[]> {
  return db.selectFrom('users').select(USER_COLUMNS).where('sub_id', '=', subId).orderBy('created_at').execute()
}

/** Every user of the installation with its subscription's name (the CLI). */
export async function listAllUsers(db: Executor): Promise<UserWithSubscription[]> {
  return db
    .selectFrom('users')
    .innerJoin('subscriptions', 'subscriptions.sub_id', 'users.sub_id')
    .select([...USER_COLUMNS, 'subscriptions.name as subscription'])
    .orderBy('users.created_at')
    .execute()
}

export async function updateUser(
  db: Executor,
  subId: string,
  userId: string,
  change: Updateable<UserTable>,
): Promise<UserRecord | undefined> {
  return db
    .updateTable('users')
    .set(change)
    .where('sub_id', '=', subId)
    .where('user_id', '=', userId)
    .returning([
      'user_id',
      'sub_id',
      'email',
      'name',
      'role',
      'site_id',
      'status',
      'created_at',
      'updated_at',
      'disabled_at',
      'must_change_password',
    ])
    .executeTakeFirst()
}

/** Replaces a generated password (must_change_password) unless the CLI set it: that one is the break-glass password. */
export async function voidGeneratedPassword(
  db: Executor,
  userId: string,
  change: { password_hash: string; updated_at: Date },
): Promise<UserRecord | undefined> {
  return db
    .updateTable('users')
    .set({ ...change, must_change_password: false })
    .where('user_id', '=', userId)
    .where('must_change_password', '=', true)
    .where('password_from_cli', '=', false)
    .returning(USER_COLUMNS)
    .executeTakeFirst()
}

export async function findUserById(db: Executor, userId: string): Promise<UserWithSubscription | undefined> {
  return db
    .selectFrom('users')
    .innerJoin('subscriptions', 'subscriptions.sub_id', 'users.sub_id')
    .select([...USER_COLUMNS, 'subscriptions.name as subscription'])
    .where('users.user_id', '=', userId)
    .executeTakeFirst()
}

// Sessions.

export async function insertSession(db: Executor, row: UserSessionRow): Promise<void> {
  await db.insertInto('user_sessions').values(row).execute()
}

/** The session and its user (with the subscription's name), in one read. */
export async function findSession(
  db: Executor,
  sessionHash: string,
): Promise<{ session: UserSessionRow; user: UserWithSubscription } | undefined> {
  const row = await db
    .selectFrom('user_sessions')
    .innerJoin('users', 'users.user_id', 'user_sessions.user_id')
    .innerJoin('subscriptions', 'subscriptions.sub_id', 'users.sub_id')
    .select([
      'user_sessions.session_hash',
      'user_sessions.session_id',
      'user_sessions.user_agent',
      'user_sessions.user_id as session_user_id',
      'user_sessions.csrf_token',
      'user_sessions.created_at as session_created_at',
      'user_sessions.last_seen_at',
      'user_sessions.expires_at',
      ...USER_COLUMNS,
      'subscriptions.name as subscription',
    ])
    .where('user_sessions.session_hash', '=', sessionHash)
    .executeTakeFirst()
  if (!row) return undefined
  const {
    session_hash,
    session_id,
    user_agent,
    session_user_id,
    csrf_token,
    session_created_at,
    last_seen_at,
    expires_at,
    ...user
  } = row
  return {
    session: {
      session_hash,
      session_id,
      user_agent,
      user_id: session_user_id,
      csrf_token,
      created_at: session_created_at,
      last_seen_at,
      expires_at,
    },
    user,
  }
}

export async function touchSession(db: Executor, sessionHash: string, at: Date): Promise<void> {
  await db.updateTable('user_sessions').set({ last_seen_at: at }).where('session_hash', '=', sessionHash).execute()
}

export async function deleteSession(db: Executor, sessionHash: string): Promise<void> {
  await db.deleteFrom('user_sessions').where('session_hash', '=', sessionHash).execute()
}

export async function deleteSessionsOf(db: Executor, userId: string): Promise<void> {
  await db.deleteFrom('user_sessions').where('user_id', '=', userId).execute()
}

/** Sessions past their absolute end or idle for longer than `idleBefore` allows. */
export async function deleteExpiredSessions(db: Executor, now: Date, idleBefore: Date): Promise<number> {
  const r = await db
    .deleteFrom('user_sessions')
    .where((eb) => eb.or([eb('expires_at', '<=', now), eb('last_seen_at', '<=', idleBefore)]))
    .executeTakeFirst()
  return Number(r.numDeletedRows)
}

/** The user's password hash (a password change checks the current one). */
export async function findPasswordHash(db: Executor, userId: string): Promise<string | undefined> {
  const row = await db.selectFrom('users').select('password_hash').where('user_id', '=', userId).executeTakeFirst()
  return row?.password_hash
}

export type SessionListing = Pick<
  UserSessionRow,
  'session_hash' | 'session_id' | 'user_agent' | 'created_at' | 'last_seen_at'
>

/** The user's live sessions (not past their absolute end, not idle since `idleBefore`), newest first. */
export async function listLiveSessions(
  db: Executor,
  userId: string,
  now: Date,
  idleBefore: Date,
): Promise<SessionListing[]> {
  return db
    .selectFrom('user_sessions')
    .select(['session_hash', 'session_id', 'user_agent', 'created_at', 'last_seen_at'])
    .where('user_id', '=', userId)
    .where('expires_at', '>', now)
    .where('last_seen_at', '>', idleBefore)
    .orderBy('created_at', 'desc')
    .orderBy('session_id')
    .execute()
}

/** Ends the user's session of this public id; false when the user has none such. */
export async function deleteSessionById(db: Executor, userId: string, sessionId: string): Promise<boolean> {
  const r = await db
    .deleteFrom('user_sessions')
    .where('user_id', '=', userId)
    .where('session_id', '=', sessionId)
    .executeTakeFirst()
  return Number(r.numDeletedRows) > 0
}

/** Ends every session of the user but the one of `keepHash`. */
export async function deleteOtherSessions(db: Executor, userId: string, keepHash: string): Promise<void> {
  await db.deleteFrom('user_sessions').where('user_id', '=', userId).where('session_hash', '<>', keepHash).execute()
}
