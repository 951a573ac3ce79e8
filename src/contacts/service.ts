import type { Db } from '../platform/db/database.js'
import { inTransaction } from '../platform/db/transaction.js'
import { batchPerSubscription } from '../platform/kit/batch.js'
import type { Clock } from '../platform/kit/clock.js'
import { AppError, registerErrors } from '../platform/kit/errors.js'
import type { IdGenerator } from '../platform/kit/ids.js'
import * as repo from './store/contacts.js'
import type { Contact, CreateContact, ListContactsQuery, UpdateContact } from './api/schemas.js'
import { normalizeForMatch } from './model/normalize.js'
import { createRosterOperations } from './roster.js'
import { createDirectoryOperations } from './directory.js'
import { createSyncOperations } from './sync.js'
import { createLookupOperations } from './lookup.js'
import { createContactChecks, type ContactSites } from './checks.js'
import {
  cleanAliases,
  text,
  toContact,
  toRecord,
  typesFor,
  withDelegates,
  type ContactRecord,
} from './model/contact-record.js'
import { departed, returnColumns, type DepartureHook } from './model/departure.js'
import * as delegates from './store/delegates.js'
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

export interface ContactsServiceDeps {
  db: Db
  clock: Clock
  ids: IdGenerator
  sites: ContactSites
}

/** A unique violation on the external id index is the caller's 409, not a 500. */
function externalIdTaken(e: unknown, externalId: string | null): never {
  if (isUniqueViolation(e, 'contacts_external_id_uq'))
    throw new AppError(CONTACT_ERRORS.CONTACT_EXTERNAL_ID_TAKEN, { field: 'externalId', detail: { externalId } })
  throw e
}

export type ContactsService = ReturnType<typeof createContactsService>

export function createContactsService(deps: ContactsServiceDeps) {
  const { db, clock, ids, sites } = deps

  const { check, checkDelegates } = createContactChecks({ db, sites })

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
    ...createLookupOperations({ db }),

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
  }
}
