import type { Db } from '../platform/db/database.js'
import { inTransaction } from '../platform/db/transaction.js'
import { batchPerSubscription } from '../platform/kit/batch.js'
import type { Clock } from '../platform/kit/clock.js'
import { AppError, registerErrors, ValidationErrors } from '../platform/kit/errors.js'
import type { IdGenerator } from '../platform/kit/ids.js'
import * as repo from './store/contacts.js'
import type {
  Contact,
  ContactStatus,
  ContactType,
  CreateContact,
  ListContactsQuery,
  UpdateContact,
} from './api/schemas.js'
import { normalizeForMatch } from './model/normalize.js'
import { createRosterOperations } from './roster.js'
import { createDirectoryOperations } from './directory.js'
import { createSyncOperations } from './sync.js'
import { departed, returnColumns, type DepartureHook } from './model/departure.js'
import * as delegates from './store/delegates.js'
import { isPlainAddress, PLAIN_ADDRESS_RULE } from './model/email.js'
import { writeRecorded, type RecordOutcome } from '../platform/idempotency/outcome.js'
import { isUniqueViolation } from '../platform/db/errors.js'
import type { ContactSource } from '../platform/db/tables.js'

export { normalizeForMatch } from './model/normalize.js'

export const CONTACT_ERRORS = registerErrors({
  CONTACT_NOT_FOUND: { status: 404, errorCode: 'not_found', additionalCode: 'CON-4040', message: 'No such contact.' },
  CONTACT_EXTERNAL_ID_TAKEN: {
    status: 409,
    errorCode: 'already_exists',
    additionalCode: 'CON-4090',
    message: 'Another contact has this externalId.',
  },
})

/** How a write reached the contacts: the API and console by default; roster, SCIM and LDAP say so. */
export interface WriteOrigin {
  source?: ContactSource
}

/** A contact as the packages and decode flows read it (history included: `deleted` says so). */
export interface ContactRecord {
  contactId: string
  contactType: ContactType
  name: string
  company?: string
  email?: string
  phone?: string
  personalId?: string
  locationSiteId?: string
  mailStopSiteId?: string
  status: ContactStatus
  /** Notification emails wanted (the unsubscribe link sets it false). */
  notify: boolean
  /** The language of its emails; absent: the subscription's. */
  language?: string
  aliases: string[]
  unit?: string
  externalId?: string
  source: ContactSource
  group: boolean
  moveInDate?: string
  moveOutDate?: string
  deleted: boolean
}

/** What contacts need from inbound sites (the sites service, given in context.ts). */
export interface ContactSites {
  existingSiteIds(subId: string, ids: string[]): Promise<Set<string>>
}

export interface ContactsServiceDeps {
  db: Db
  clock: Clock
  ids: IdGenerator
  sites: ContactSites
}

/** Most contacts a decode match returns; more means the name is too common to pick from. */
const MAX_MATCHES = 20

/** Optional text: trimmed; "" and null both mean "not set". */
function text(v: string | null | undefined): string | null {
  const t = v?.trim()
  return t ? t : null
}

function toRecord(r: repo.ContactRow): ContactRecord {
  const out: ContactRecord = {
    contactId: r.contact_id,
    contactType: r.contact_type,
    name: r.name,
    status: r.status,
    notify: r.notify,
    aliases: r.aliases,
    source: r.source,
    group: r.is_group,
    deleted: r.deleted_at !== null,
  }
  if (r.company !== null) out.company = r.company
  if (r.email !== null) out.email = r.email
  if (r.phone !== null) out.phone = r.phone
  if (r.personal_id !== null) out.personalId = r.personal_id
  if (r.location_site_id !== null) out.locationSiteId = r.location_site_id
  if (r.mail_stop_site_id !== null) out.mailStopSiteId = r.mail_stop_site_id
  if (r.language !== null) out.language = r.language
  if (r.unit !== null) out.unit = r.unit
  if (r.external_id !== null) out.externalId = r.external_id
  if (r.move_in !== null) out.moveInDate = r.move_in
  if (r.move_out !== null) out.moveOutDate = r.move_out
  return out
}

/** Trimmed, blank ones dropped, the first of each spelling ignoring case kept. */
function cleanAliases(aliases: readonly string[]): string[] {
  const seen = new Set<string>()
  const out: string[] = []
  for (const a of aliases) {
    const t = a.trim()
    const key = t.toLowerCase()
    if (t && !seen.has(key)) {
      seen.add(key)
      out.push(t)
    }
  }
  return out
}

/** A unique violation on the external id index is the caller's 409, not a 500. */
function externalIdTaken(e: unknown, externalId: string | null): never {
  if (isUniqueViolation(e, 'contacts_external_id_uq'))
    throw new AppError(CONTACT_ERRORS.CONTACT_EXTERNAL_ID_TAKEN, { field: 'externalId', detail: { externalId } })
  throw e
}

/** The contact with its delegates, in id order (absent when it has none). */
function withDelegates(c: Contact, ids: string[]): Contact {
  return ids.length === 0 ? c : { ...c, delegates: [...ids].sort().map((contactId) => ({ contactId })) }
}

function toContact(r: repo.ContactRow): Contact {
  const { locationSiteId, mailStopSiteId, deleted: _deleted, ...rest } = toRecord(r)
  const out: Contact = rest
  if (locationSiteId) out.location = { inboundSiteId: locationSiteId }
  if (mailStopSiteId) out.mailStopLocation = { inboundSiteId: mailStopSiteId }
  return out
}

/** Which stored types a `contactType` filter selects: ALL contacts serve as senders and as receivers. */
function typesFor(filter: ContactType | undefined): ContactType[] | undefined {
  if (filter === 'SENDER') return ['SENDER', 'ALL']
  if (filter === 'RECEIVER') return ['RECEIVER', 'ALL']
  if (filter === 'ALL') return ['ALL']
  return undefined
}

export type ContactsService = ReturnType<typeof createContactsService>

export function createContactsService(deps: ContactsServiceDeps) {
  const { db, clock, ids, sites } = deps

  /** Checks email and site links together, so one answer lists every problem. */
  async function check(
    subId: string,
    v: { email: string | null; location?: string | null; mailStop?: string | null },
  ): Promise<void> {
    const problems: Array<{ field: string; description: string }> = []
    if (v.email !== null && !isPlainAddress(v.email))
      problems.push({ field: 'email', description: `email must be ${PLAIN_ADDRESS_RULE}` })
    const links: Array<[string, string]> = []
    if (v.location) links.push(['location.inboundSiteId', v.location])
    if (v.mailStop) links.push(['mailStopLocation.inboundSiteId', v.mailStop])
    if (links.length > 0) {
      const live = await sites.existingSiteIds(
        subId,
        links.map(([, id]) => id),
      )
      for (const [field, id] of links)
        if (!live.has(id)) problems.push({ field, description: `No inbound site ${id}.` })
    }
    if (problems.length > 0) throw new ValidationErrors(problems)
  }

  /** Delegates are live contacts of the subscription, and not the contact itself: 400 naming `delegates`. */
  async function checkDelegates(subId: string, contactId: string, ids: string[]): Promise<void> {
    if (ids.length === 0) return
    const live = await delegates.liveContactIds(db, subId, ids)
    const bad = ids.filter((id) => id === contactId || !live.has(id))
    if (bad.length > 0)
      throw new ValidationErrors(
        bad.map((id) => ({
          field: 'delegates',
          description: id === contactId ? 'A contact is not its own delegate.' : `No contact ${id}.`,
        })),
      )
  }

  async function mustFind(subId: string, contactId: string): Promise<repo.ContactRow> {
    const row = await repo.findContact(db, subId, contactId)
    if (!row) throw new AppError(CONTACT_ERRORS.CONTACT_NOT_FOUND, { detail: { contactId } })
    return row
  }

  // Package adds and updates look up their contacts: concurrent ones go as one query (see batchPerSubscription).
  const contactById = batchPerSubscription<ContactRecord>(async (subId, contactIds) => {
    const rows = await repo.findContactsByIds(db, subId, contactIds)
    return new Map(rows.map((r) => [r.contact_id, toRecord(r)]))
  })

  // Who is told of departures (the directory's, set up after the packages exist: see listenDepartures).
  const departureHooks: DepartureHook[] = []
  const onDeparted: DepartureHook = async (subId, contactIds) => {
    for (const hook of departureHooks) await hook(subId, contactIds)
  }

  return {
    ...createRosterOperations({ db, clock, ids, onDeparted }),
    ...createDirectoryOperations({ db, clock, ids, onDeparted }),
    ...createSyncOperations({ db, clock, ids, onDeparted }),

    /** `hook` is told of every recipient who leaves (deactivated, moved out), once the write committed. */
    listenDepartures(hook: DepartureHook): void {
      departureHooks.push(hook)
    },

    async createContact(
      subId: string,
      input: CreateContact,
      outcome?: RecordOutcome<Contact>,
      origin: WriteOrigin = {},
    ): Promise<Contact> {
      const name = input.name.trim()
      const company = text(input.company)
      const email = text(input.email)
      await check(subId, {
        email,
        location: input.location?.inboundSiteId,
        mailStop: input.mailStopLocation?.inboundSiteId,
      })
      const at = clock.now()
      const row: repo.ContactRow = {
        contact_id: ids('con_'),
        sub_id: subId,
        contact_type: input.contactType,
        name,
        company,
        email,
        phone: text(input.phone),
        personal_id: text(input.personalId),
        location_site_id: input.location?.inboundSiteId ?? null,
        mail_stop_site_id: input.mailStopLocation?.inboundSiteId ?? null,
        status: input.status ?? 'active',
        notify: input.notify ?? true,
        language: input.language ?? null,
        match_name: normalizeForMatch(name),
        match_company: company === null ? null : normalizeForMatch(company),
        aliases: cleanAliases(input.aliases ?? []),
        unit: text(input.unit),
        external_id: text(input.externalId),
        source: origin.source ?? 'manual',
        is_group: input.group ?? false,
        move_in: input.moveInDate ?? null,
        move_out: input.moveOutDate ?? null,
        created_at: at,
        updated_at: at,
        deleted_at: null,
      }
      const chosen = input.delegates?.map((d) => d.contactId) ?? []
      await checkDelegates(subId, row.contact_id, chosen)
      return writeRecorded(db, outcome, withDelegates(toContact(row), chosen), async (ex) => {
        await repo.insertContact(ex, row).catch((e: unknown) => externalIdTaken(e, row.external_id))
        await delegates.addDelegates(ex, subId, row.contact_id, chosen)
      })
    },

    async getContact(subId: string, contactId: string): Promise<Contact> {
      const c = toContact(await mustFind(subId, contactId))
      return withDelegates(c, (await delegates.delegatesOf(db, subId, [contactId])).get(contactId) ?? [])
    },

    async updateContact(
      subId: string,
      contactId: string,
      input: UpdateContact,
      origin: WriteOrigin = {},
    ): Promise<Contact> {
      // 404 before 400. The checks read through other services, so they run before the transaction
      // (PGlite has a single connection). Only what the body names is checked: a site deleted since
      // it was linked does not block other edits.
      await mustFind(subId, contactId)
      await check(subId, {
        email: text(input.email),
        location: input.location?.inboundSiteId,
        mailStop: input.mailStopLocation?.inboundSiteId,
      })
      const chosen = input.delegates?.map((d) => d.contactId)
      if (chosen) await checkDelegates(subId, contactId, chosen)
      const [out, left] = await inTransaction(db, async (trx) => {
        const cur = await repo.findContact(trx, subId, contactId, { forUpdate: true })
        if (!cur) throw new AppError(CONTACT_ERRORS.CONTACT_NOT_FOUND, { detail: { contactId } })
        const pick = (given: string | null | undefined, current: string | null) =>
          given === undefined ? current : text(given)
        const name = input.name?.trim() ?? cur.name
        const company = pick(input.company, cur.company)
        const email = pick(input.email, cur.email)
        const next: repo.ContactRow = {
          ...cur,
          contact_type: input.contactType ?? cur.contact_type,
          name,
          company,
          email,
          phone: pick(input.phone, cur.phone),
          personal_id: pick(input.personalId, cur.personal_id),
          location_site_id:
            input.location === undefined ? cur.location_site_id : (input.location?.inboundSiteId ?? null),
          mail_stop_site_id:
            input.mailStopLocation === undefined
              ? cur.mail_stop_site_id
              : (input.mailStopLocation?.inboundSiteId ?? null),
          status: input.status ?? cur.status,
          notify: input.notify ?? cur.notify,
          language: input.language === undefined ? cur.language : input.language,
          match_name: normalizeForMatch(name),
          match_company: company === null ? null : normalizeForMatch(company),
          aliases: input.aliases === undefined ? cur.aliases : cleanAliases(input.aliases),
          unit: pick(input.unit, cur.unit),
          external_id: pick(input.externalId, cur.external_id),
          source: origin.source ?? cur.source,
          is_group: input.group ?? cur.is_group,
          move_in: input.moveInDate === undefined ? cur.move_in : input.moveInDate,
          move_out: input.moveOutDate === undefined ? cur.move_out : input.moveOutDate,
          updated_at: clock.now(),
        }
        const { contact_id: _id, sub_id: _sub, created_at: _created, ...set } = next
        await repo
          .updateContact(trx, subId, contactId, { ...set, ...returnColumns(cur, next, next.updated_at) })
          .catch((e: unknown) => externalIdTaken(e, next.external_id))
        if (chosen) {
          await delegates.removeDelegates(trx, subId, contactId, 'all')
          await delegates.addDelegates(trx, subId, contactId, chosen)
        }
        const now = (await delegates.delegatesOf(trx, subId, [contactId])).get(contactId) ?? []
        return [withDelegates(toContact(next), now), departed(cur, next, next.updated_at)] as const
      })
      // A clerk deactivating a recipient (or setting a past move-out date) flags their waiting parcels too.
      if (left) await onDeparted(subId, [contactId])
      return out
    },

    /** The unsubscribe link's effect: no more notification emails to this contact. False: no such contact. */
    async setNotify(subId: string, contactId: string, notify: boolean): Promise<boolean> {
      const cur = await repo.findContact(db, subId, contactId)
      if (!cur) return false
      await repo.updateContact(db, subId, contactId, { notify, updated_at: clock.now() })
      return true
    },

    /** Soft delete: packages keep pointing at the contact; the API answers 404 for it from now on. */
    async deleteContact(subId: string, contactId: string): Promise<void> {
      await inTransaction(db, async (trx) => {
        const cur = await repo.findContact(trx, subId, contactId, { forUpdate: true })
        if (!cur) throw new AppError(CONTACT_ERRORS.CONTACT_NOT_FOUND, { detail: { contactId } })
        const at = clock.now()
        await repo.updateContact(trx, subId, contactId, { deleted_at: at, updated_at: at })
      })
    },

    async listContacts(subId: string, q: ListContactsQuery): Promise<{ contacts: Contact[]; totalCount: number }> {
      const prefix = q.query?.trim().toLowerCase()
      const { rows, total } = await repo.listContacts(
        db,
        { subId, prefix: prefix || undefined, types: typesFor(q.contactType), status: q.status },
        { skip: q.skip, limit: q.limit },
      )
      const of = await delegates.delegatesOf(
        db,
        subId,
        rows.map((r) => r.contact_id),
      )
      return {
        contacts: rows.map((r) => withDelegates(toContact(r), of.get(r.contact_id) ?? [])),
        totalCount: total,
      }
    },

    /** By id, for display: inactive and deleted contacts included (packages show their history). */
    async getByIds(subId: string, contactIds: string[]): Promise<Map<string, ContactRecord>> {
      const ids = [...new Set(contactIds)]
      const found = await Promise.all(ids.map((id) => contactById(subId, id)))
      return new Map(ids.flatMap((id, i) => (found[i] ? [[id, found[i]] as const] : [])))
    },

    /**
     * Receivers whose normalised name equals that of `name` (a decoded ship-to). When `company` is
     * given and some of them match it too, only those; otherwise the company does not narrow, as
     * labels often carry a company the contact record lacks or spells differently.
     */
    /**
     * Contacts a label's ship-to company alone can mean (no person named): a contact named after
     * the company (the business as recipient) comes first; otherwise the people at it.
     */
    async findCompanyMatches(subId: string, company: string): Promise<ContactRecord[]> {
      const matchCompany = normalizeForMatch(company)
      if (!matchCompany) return []
      const rows = await repo.findReceiversByMatchCompany(db, subId, matchCompany, MAX_MATCHES)
      const named = rows.filter((r) => r.match_name === matchCompany)
      return (named.length > 0 ? named : rows).map(toRecord)
    },

    async findMatches(subId: string, name: string, company?: string): Promise<ContactRecord[]> {
      const matchName = normalizeForMatch(name)
      if (!matchName) return []
      const rows = await repo.findReceiversByMatchName(db, subId, matchName, MAX_MATCHES)
      const matchCompany = company === undefined ? '' : normalizeForMatch(company)
      const narrowed = matchCompany ? rows.filter((r) => r.match_company === matchCompany) : []
      return (narrowed.length > 0 ? narrowed : rows).map(toRecord)
    },
  }
}
