import type { Contact, ContactStatus, ContactType } from '../api/schemas.js'
import type { ContactSource } from '../../platform/db/tables.js'
import type * as repo from '../store/contacts.js'

// A contact's row as the API and the other domains read it: pure mappings (the service: ../service.ts).

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

/** Optional text: trimmed; "" and null both mean "not set". */
export function text(v: string | null | undefined): string | null {
  const t = v?.trim()
  return t ? t : null
}

export function toRecord(r: repo.ContactRow): ContactRecord {
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
export function cleanAliases(aliases: readonly string[]): string[] {
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

/** The contact with its delegates, in id order (absent when it has none). */
export function withDelegates(c: Contact, ids: string[]): Contact {
  return ids.length === 0 ? c : { ...c, delegates: [...ids].sort().map((contactId) => ({ contactId })) }
}

export function toContact(r: repo.ContactRow): Contact {
  const { locationSiteId, mailStopSiteId, deleted: _deleted, ...rest } = toRecord(r)
  const out: Contact = rest
  if (locationSiteId) out.location = { inboundSiteId: locationSiteId }
  if (mailStopSiteId) out.mailStopLocation = { inboundSiteId: mailStopSiteId }
  return out
}

/** Which stored types a `contactType` filter selects: ALL contacts serve as senders and as receivers. */
export function typesFor(filter: ContactType | undefined): ContactType[] | undefined {
  if (filter === 'SENDER') return ['SENDER', 'ALL']
  if (filter === 'RECEIVER') return ['RECEIVER', 'ALL']
  if (filter === 'ALL') return ['ALL']
  return undefined
}
