import type { Db } from '../platform/db/database.js'
import { inTransaction, type Executor } from '../platform/db/transaction.js'
import type { Clock } from '../platform/kit/clock.js'
import { AppError, registerErrors, ValidationErrors } from '../platform/kit/errors.js'
import type { IdGenerator } from '../platform/kit/ids.js'
import { isUniqueViolation } from '../platform/db/errors.js'
import * as repo from './store/directory.js'
import * as delegates from './store/delegates.js'
import * as departures from './store/departures.js'
import type { DirectoryCondition } from './model/directory-query.js'
import {
  columnsOf,
  personProblems,
  toDirectoryContact,
  type DirectoryContact,
  type DirectoryPerson,
  type DirectorySource,
} from './model/directory-person.js'

export { personProblems } from './model/directory-person.js'
export type { DirectoryContact, DirectoryPerson, DirectorySource } from './model/directory-person.js'
import { departed, returnColumns, type DepartureHook } from './model/departure.js'

export const DIRECTORY_ERRORS = registerErrors({
  DIRECTORY_USER_NAME_TAKEN: {
    status: 409,
    errorCode: 'already_exists',
    additionalCode: 'CON-4091',
    message: 'Another contact has this userName.',
  },
})

export interface DirectoryDeps {
  db: Db
  clock: Clock
  ids: IdGenerator
  /** Told, after the write committed, of recipients who left (deactivated or moved out). */
  onDeparted?: DepartureHook
}

export type DirectoryContacts = ReturnType<typeof createDirectoryOperations>

/** What the directory protocols (SCIM, LDAP) do to contacts; the protocols themselves live in src/directory. */
export function createDirectoryOperations(deps: DirectoryDeps) {
  const { db, clock, ids } = deps

  /**
   * A userName or externalId another contact has: the unique index decides (no read before the
   * write, and two concurrent writes of one cannot both pass), and the write is a 409.
   */
  function taken(e: unknown): never {
    if (isUniqueViolation(e, 'contacts_user_name_idx'))
      throw new AppError(DIRECTORY_ERRORS.DIRECTORY_USER_NAME_TAKEN, { field: 'userName' })
    if (isUniqueViolation(e, 'contacts_external_id_uq'))
      throw new AppError('CONTACT_EXTERNAL_ID_TAKEN', { field: 'externalId' })
    throw e
  }

  /**
   * The columns of `p` that differ from `cur` (all of them for a new contact). Only those are
   * written: an unchanged name does not rewrite the name's indexes or wake the name-words trigger
   * (migration 0054), and a person sent again unchanged writes nothing at all.
   */
  function changes(cur: repo.DirectoryRow, cols: Record<string, unknown>): Record<string, unknown> {
    const same = (a: unknown, b: unknown) =>
      a === b ||
      (typeof a === 'object' && a !== null && typeof b !== 'string' && JSON.stringify(a) === JSON.stringify(b))
    const row = cur as unknown as Record<string, unknown>
    return Object.fromEntries(Object.entries(cols).filter(([k, v]) => !same(row[k], v)))
  }

  /** A new contact of `p`, as stored. */
  async function insert(
    ex: Executor,
    subId: string,
    p: DirectoryPerson,
    group: boolean,
    source: DirectorySource,
  ): Promise<repo.VersionedRow> {
    const at = clock.now()
    return repo
      .insertDirectoryContact(ex, {
        contact_type: 'RECEIVER',
        notify: true,
        company: null,
        email: null,
        phone: null,
        personal_id: null,
        location_site_id: null,
        mail_stop_site_id: null,
        language: null,
        match_company: null,
        ...columnsOf(p, group, source),
        contact_id: ids('con_'),
        sub_id: subId,
        created_at: at,
        updated_at: at,
      })
      .catch(taken)
  }

  /**
   * `cur` set to `p`, if it is still the version read (`cur.row_version`); undefined when another
   * write came first. Only what changed is written; nothing changed writes nothing.
   */
  async function update(
    ex: Executor,
    subId: string,
    cur: repo.VersionedRow,
    p: DirectoryPerson,
    group: boolean,
    source: DirectorySource,
  ): Promise<{ row: repo.VersionedRow; departed: boolean } | undefined> {
    const at = clock.now()
    const set = changes(cur, columnsOf(p, group, source))
    if (Object.keys(set).length === 0) return { row: cur, departed: false }
    const row = await repo
      .updateDirectoryContactAt(ex, subId, cur.contact_id, cur.row_version, {
        ...set,
        ...returnColumns(cur, set, at),
        updated_at: at,
      })
      .catch(taken)
    return row && { row, departed: departed(cur, set, at) }
  }

  function check(p: DirectoryPerson): void {
    const problems = personProblems(p)
    if (problems.length > 0) throw new ValidationErrors(problems)
  }

  /** After the commit: the hook reads packages on its own connection (PGlite has one). */
  async function tell(subId: string, contactId: string, left: boolean) {
    if (left) await deps.onDeparted?.(subId, [contactId])
  }

  /**
   * Whether the directory's provider owns the contact: a user it provisioned (it has a userName),
   * a group it made. Contacts typed at the desk or pulled from LDAP are not its to read or change
   * (a 404), until a POST adopts one by its email.
   */
  const owned = (row: repo.DirectoryRow | undefined, group: boolean): row is repo.DirectoryRow =>
    row !== undefined && row.is_group === group && (group ? row.source === 'scim' : row.user_name !== null)

  async function read(
    ex: Executor,
    subId: string,
    contactId: string,
    group: boolean,
    any = false,
  ): Promise<DirectoryContact> {
    const row = await repo.findDirectoryContact(ex, subId, contactId)
    if (!(any ? row !== undefined && row.is_group === group : owned(row, group)))
      throw new AppError('CONTACT_NOT_FOUND', { detail: { contactId } })
    return toDirectoryContact(row!)
  }

  /**
   * The contact `contactId` set to what `change` makes of it (a SCIM PATCH applied to the
   * resource), without a lock: read, change, written only if no other write came in between
   * (the row's version); if one did, once more under a row lock. `any`: a contact the provider
   * does not own yet (adoption).
   */
  async function modify(
    subId: string,
    contactId: string,
    change: (current: DirectoryContact) => DirectoryPerson,
    source: DirectorySource,
    opts: { group?: boolean; any?: boolean } = {},
  ): Promise<DirectoryContact> {
    const group = opts.group ?? false
    const attempt = async (ex: Executor, lock: boolean) => {
      const cur = await repo.findDirectoryContact(ex, subId, contactId, { forUpdate: lock })
      if (!(opts.any ? cur?.is_group === group : owned(cur, group)))
        throw new AppError('CONTACT_NOT_FOUND', { detail: { contactId } })
      const p = change(toDirectoryContact(cur!))
      check(p)
      return update(ex, subId, cur!, p, group, source)
    }
    const done = (await attempt(db, false)) ?? (await inTransaction(db, (trx) => attempt(trx, true)))
    if (!done) throw new Error(`contact ${contactId} changed under its row lock`)
    await tell(subId, contactId, done.departed)
    return toDirectoryContact(done.row)
  }

  return {
    /**
     * A person provisioned: the contact with its externalId or userName is a conflict (the
     * provider should have found it by filter), a manual contact of its email is adopted,
     * otherwise a new contact. Groups are always new.
     */
    async provision(
      subId: string,
      p: DirectoryPerson,
      source: DirectorySource,
      opts: { group?: boolean } = {},
    ): Promise<DirectoryContact> {
      const group = opts.group ?? false
      check(p)
      // A contact made elsewhere (the desk, a roster) with this externalId or email is adopted;
      // one already provisioned (it has a userName) is not: the unique index refuses the insert.
      const found = group
        ? undefined
        : await repo.findProvisioned(db, subId, { externalId: p.externalId, email: p.email })
      if (found?.user_name !== null) return toDirectoryContact(await insert(db, subId, p, group, source))
      // Adopted meanwhile by another create (it has a userName now): that one won, this is a 409.
      const adopt = (cur: DirectoryContact) => {
        if (cur.userName) throw new AppError(DIRECTORY_ERRORS.DIRECTORY_USER_NAME_TAKEN, { field: 'userName' })
        return p
      }
      return modify(subId, found.contact_id, adopt, source, { group, any: true })
    },

    /** The contact `contactId` (a user, or a group) set to `p`; absent optional fields keep theirs. */
    async replace(
      subId: string,
      contactId: string,
      p: DirectoryPerson,
      source: DirectorySource,
      opts: { group?: boolean } = {},
    ): Promise<DirectoryContact> {
      return modify(subId, contactId, () => p, source, opts)
    },

    modify,

    /** The contact, if the provider owns it; `any`: whoever made it (the departures' read). */
    async getDirectoryContact(subId: string, contactId: string, opts: { group?: boolean; any?: boolean } = {}) {
      return read(db, subId, contactId, opts.group ?? false, opts.any ?? false)
    },

    async queryDirectory(
      subId: string,
      kind: repo.DirectoryKind,
      where: DirectoryCondition | undefined,
      page: { offset: number; limit: number },
    ): Promise<{ contacts: DirectoryContact[]; total: number }> {
      const { rows, total } = await repo.queryDirectory(db, subId, kind, where, page)
      return { contacts: rows.map(toDirectoryContact), total }
    },

    /** Delegates (a group's members) of each contact, in id order. */
    async delegatesOf(subId: string, contactIds: string[]): Promise<Map<string, string[]>> {
      return delegates.delegatesOf(db, subId, contactIds)
    },

    /**
     * Changes `contactId`'s delegates: `set` replaces them all, `add` and `remove` change some.
     * A delegate that is no live contact of the subscription, or the contact itself, is a 400
     * naming `field`.
     */
    async changeDelegates(
      subId: string,
      contactId: string,
      change: { set?: string[]; add?: string[]; remove?: string[] },
      field = 'delegates',
    ): Promise<void> {
      await inTransaction(db, async (trx) => {
        const cur = await repo.findDirectoryContact(trx, subId, contactId, { forUpdate: true })
        if (!cur) throw new AppError('CONTACT_NOT_FOUND', { detail: { contactId } })
        const wanted = [...new Set([...(change.set ?? []), ...(change.add ?? [])])]
        const live = await delegates.liveContactIds(trx, subId, wanted)
        const bad = wanted.filter((id) => !live.has(id) || id === contactId)
        if (bad.length > 0)
          throw new ValidationErrors(
            bad.slice(0, 50).map((id) => ({
              field,
              description: id === contactId ? 'A contact is not its own delegate.' : `No contact ${id}.`,
            })),
          )
        if (change.set) await delegates.removeDelegates(trx, subId, contactId, 'all')
        await delegates.addDelegates(trx, subId, contactId, wanted)
        if (change.remove) await delegates.removeDelegates(trx, subId, contactId, change.remove)
        await repo.updateDirectoryContact(trx, subId, contactId, { updated_at: clock.now() })
      })
    },

    /** Gone contacts whose departure is not noted yet, across subscriptions (the periodic sweep). */
    goneUnnoted: (day: string, limit: number) => departures.goneUnnoted(db, day, limit),
    /** Gone contacts whose departure was noted, newest first (the dashboard's exceptions). */
    goneNoted: (subId: string, day: string, limit: number) => departures.goneNoted(db, subId, day, limit),
    /** Marks a departure noted, in the caller's transaction; false: it already was. */
    noteDeparture: (ex: Executor, subId: string, contactId: string, at: Date) =>
      departures.noteDeparture(ex, subId, contactId, at),
  }
}
