import type { Db } from '../platform/db/database.js'
import { inTransaction, type Executor } from '../platform/db/transaction.js'
import type { Clock } from '../platform/kit/clock.js'
import { AppError, registerErrors, ValidationErrors } from '../platform/kit/errors.js'
import type { IdGenerator } from '../platform/kit/ids.js'
import { LANGUAGE_PATTERN } from '../platform/http/schemas.js'
import { isUniqueViolation } from '../platform/db/errors.js'
import * as repo from './store/directory.js'
import type { DirectoryCondition } from './model/directory-query.js'
import { isPlainAddress, PLAIN_ADDRESS_RULE } from './model/email.js'
import { normalizeForMatch } from './model/normalize.js'
import { departed, isGone, type DepartureHook } from './model/departure.js'

export const DIRECTORY_ERRORS = registerErrors({
  DIRECTORY_USER_NAME_TAKEN: {
    status: 409,
    errorCode: 'already_exists',
    additionalCode: 'CON-4091',
    message: 'Another contact has this userName.',
  },
})

export type DirectorySource = 'scim' | 'ldap'

/** A person or group as a directory (SCIM, LDAP) describes it, mapped to contact fields. */
export interface DirectoryPerson {
  name: string
  userName?: string | null
  externalId?: string | null
  email?: string | null
  phone?: string | null
  company?: string | null
  personalId?: string | null
  unit?: string | null
  aliases?: string[]
  language?: string | null
  active: boolean
  moveInDate?: string | null
  moveOutDate?: string | null
  /** SCIM: the resource as sent, less mapped attributes and any password. */
  scimAttributes?: Record<string, unknown> | null
}

export interface DirectoryContact extends DirectoryPerson {
  contactId: string
  group: boolean
  source: string
  createdAt: Date
  updatedAt: Date
}

const LIMITS: Array<[keyof DirectoryPerson, number]> = [
  ['name', 200],
  ['userName', 200],
  ['externalId', 200],
  ['company', 200],
  ['phone', 50],
  ['personalId', 100],
  ['unit', 100],
  ['email', 254],
]
const LANGUAGE = new RegExp(LANGUAGE_PATTERN)
const DATE = /^\d{4}-\d{2}-\d{2}$/

/** Every problem of a person at once, named by the directory's own attribute (`names` maps them). */
export function personProblems(
  p: DirectoryPerson,
  names: Partial<Record<keyof DirectoryPerson, string>> = {},
): Array<{ field: string; description: string }> {
  const out: Array<{ field: string; description: string }> = []
  const at = (f: keyof DirectoryPerson) => names[f] ?? f
  if (!p.name.trim()) out.push({ field: at('name'), description: 'A name is required.' })
  for (const [f, max] of LIMITS) {
    const v = p[f]
    if (typeof v === 'string' && v.length > max) out.push({ field: at(f), description: `At most ${max} characters.` })
  }
  if (p.email && !isPlainAddress(p.email))
    out.push({ field: at('email'), description: `Must be ${PLAIN_ADDRESS_RULE}.` })
  if ((p.aliases?.length ?? 0) > 10) out.push({ field: at('aliases'), description: 'At most 10 aliases.' })
  for (const a of p.aliases ?? [])
    if (a.length < 1 || a.length > 100) out.push({ field: at('aliases'), description: 'Each alias 1–100 characters.' })
  for (const f of ['moveInDate', 'moveOutDate'] as const) {
    const v = p[f]
    if (v && (!DATE.test(v) || Number.isNaN(Date.parse(v))))
      out.push({ field: at(f), description: 'A date YYYY-MM-DD.' })
  }
  return out
}

const day = (at: Date) => at.toISOString().slice(0, 10)
const next = (cur: repo.DirectoryRow, cols: Record<string, unknown>) =>
  cols.move_out === undefined ? (cur.move_out as Date | string | null) : (cols.move_out as string | null)

const isoDay = (d: Date | string | null): string | null =>
  d === null ? null : typeof d === 'string' ? d.slice(0, 10) : d.toISOString().slice(0, 10)

function toDirectoryContact(r: repo.DirectoryRow): DirectoryContact {
  return {
    contactId: r.contact_id,
    name: r.name,
    userName: r.user_name,
    externalId: r.external_id,
    email: r.email,
    phone: r.phone,
    company: r.company,
    personalId: r.personal_id,
    unit: r.unit,
    aliases: r.aliases,
    language: r.language && LANGUAGE.test(r.language) ? r.language : null,
    active: r.status === 'active',
    moveInDate: isoDay(r.move_in),
    moveOutDate: isoDay(r.move_out),
    scimAttributes: r.scim_attributes,
    group: r.is_group,
    source: r.source,
    createdAt: new Date(r.created_at),
    updatedAt: new Date(r.updated_at),
  }
}

/** The columns a person sets. Absent (undefined) optional fields keep what is stored. */
function columnsOf(p: DirectoryPerson, group: boolean, source: DirectorySource) {
  const cols: Record<string, unknown> = {
    name: p.name.trim(),
    match_name: normalizeForMatch(p.name),
    status: p.active ? 'active' : 'inactive',
    is_group: group,
    source,
  }
  const set = (col: string, v: unknown) => {
    if (v !== undefined) cols[col] = v
  }
  set('user_name', p.userName)
  set('external_id', p.externalId)
  set('email', p.email)
  set('phone', p.phone)
  set('company', p.company)
  if (p.company !== undefined) cols.match_company = p.company ? normalizeForMatch(p.company) : null
  set('personal_id', p.personalId)
  set('unit', p.unit)
  set('aliases', p.aliases)
  set('language', p.language)
  set('move_in', p.moveInDate)
  set('move_out', p.moveOutDate)
  if (p.scimAttributes !== undefined)
    cols.scim_attributes = p.scimAttributes === null ? null : JSON.stringify(p.scimAttributes)
  return cols
}

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

  async function write(
    trx: Executor,
    subId: string,
    cur: repo.DirectoryRow | undefined,
    p: DirectoryPerson,
    group: boolean,
    source: DirectorySource,
  ): Promise<{ id: string; departed: boolean }> {
    const problems = personProblems(p)
    if (problems.length > 0) throw new ValidationErrors(problems)
    const at = clock.now()
    const cols = columnsOf(p, group, source)
    if (cur) {
      // Back again (reactivated, move-out cleared): a later departure is flagged afresh.
      const back = isGone(cur, day(at)) && !isGone({ status: String(cols.status), move_out: next(cur, cols) }, day(at))
      await repo
        .updateDirectoryContact(trx, subId, cur.contact_id, {
          ...cols,
          ...(back ? { departure_noted_at: null } : {}),
          updated_at: at,
        })
        .catch(taken)
      return { id: cur.contact_id, departed: departed(cur, cols, at) }
    }
    const contactId = ids('con_')
    await repo
      .insertDirectoryContact(trx, {
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
        ...cols,
        contact_id: contactId,
        sub_id: subId,
        created_at: at,
        updated_at: at,
      })
      .catch(taken)
    return { id: contactId, departed: false }
  }

  /** After the commit: the hook reads packages on its own connection (PGlite has one). */
  async function tell(subId: string, w: { id: string; departed: boolean }) {
    if (w.departed) await deps.onDeparted?.(subId, [w.id])
  }

  async function read(ex: Executor, subId: string, contactId: string, group: boolean): Promise<DirectoryContact> {
    const row = await repo.findDirectoryContact(ex, subId, contactId)
    if (!row || row.is_group !== group) throw new AppError('CONTACT_NOT_FOUND', { detail: { contactId } })
    return toDirectoryContact(row)
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
      const [w, out] = await inTransaction(db, async (trx) => {
        // A contact made elsewhere (the desk, a roster) with this externalId or email is adopted;
        // one already provisioned (it has a userName) is not: the uniqueness checks refuse the POST.
        const found = group
          ? undefined
          : await repo.findProvisioned(trx, subId, { externalId: p.externalId, email: p.email })
        const adopt = found && found.user_name === null ? found : undefined
        const written = await write(trx, subId, adopt, p, group, source)
        return [written, await read(trx, subId, written.id, group)] as const
      })
      await tell(subId, w)
      return out
    },

    /** The contact `contactId` (a user, or a group) set to `p`; absent optional fields keep theirs. */
    async replace(
      subId: string,
      contactId: string,
      p: DirectoryPerson,
      source: DirectorySource,
      opts: { group?: boolean } = {},
    ): Promise<DirectoryContact> {
      const group = opts.group ?? false
      const [w, out] = await inTransaction(db, async (trx) => {
        const cur = await repo.findDirectoryContact(trx, subId, contactId, { forUpdate: true })
        if (!cur || cur.is_group !== group) throw new AppError('CONTACT_NOT_FOUND', { detail: { contactId } })
        const written = await write(trx, subId, cur, p, group, source)
        return [written, await read(trx, subId, contactId, group)] as const
      })
      await tell(subId, w)
      return out
    },

    async getDirectoryContact(subId: string, contactId: string, opts: { group?: boolean } = {}) {
      return read(db, subId, contactId, opts.group ?? false)
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
      return repo.delegatesOf(db, subId, contactIds)
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
        const live = await repo.liveContactIds(trx, subId, wanted)
        const bad = wanted.filter((id) => !live.has(id) || id === contactId)
        if (bad.length > 0)
          throw new ValidationErrors(
            bad.slice(0, 50).map((id) => ({
              field,
              description: id === contactId ? 'A contact is not its own delegate.' : `No contact ${id}.`,
            })),
          )
        if (change.set) await repo.removeDelegates(trx, subId, contactId, 'all')
        await repo.addDelegates(trx, subId, contactId, wanted)
        if (change.remove) await repo.removeDelegates(trx, subId, contactId, change.remove)
        await repo.updateDirectoryContact(trx, subId, contactId, { updated_at: clock.now() })
      })
    },

    /** Gone contacts whose departure is not noted yet, across subscriptions (the periodic sweep). */
    goneUnnoted: (day: string, limit: number) => repo.goneUnnoted(db, day, limit),
    /** Gone contacts whose departure was noted, newest first (the dashboard's exceptions). */
    goneNoted: (subId: string, day: string, limit: number) => repo.goneNoted(db, subId, day, limit),
    /** Marks a departure noted, in the caller's transaction; false: it already was. */
    noteDeparture: (ex: Executor, subId: string, contactId: string, at: Date) =>
      repo.noteDeparture(ex, subId, contactId, at),
  }
}
