import type { SiteInfo } from '../../sites/index.js'
import type { ContactLike } from './deps.js'

/** Everything needed to render a batch of packages (filled by the read model, packages/store/read.ts, or an export). */
export interface RecordContext {
  sites: Map<string, SiteInfo>
  contacts: Map<string, ContactLike>
  carriers: Map<string, { carrierId: string; name: string }>
  customFields: Map<string, { name: string; status: string }>
  zips: Map<string, string>
  /** When the records are read: a waiting parcel's holding fee counts until then (none given: no fee shown). */
  now?: Date
}

/** A site as a record shows it (without what only the service keeps). */
export function siteRefOf(s: SiteInfo | undefined) {
  if (!s) return undefined
  const { locationId: _l, status: _s, deleted: _d, holdingFee: _f, ...ref } = s
  return ref
}

export const siteRef = (ctx: RecordContext, id: string | null | undefined) =>
  siteRefOf(id ? ctx.sites.get(id) : undefined)

export function contactRef(ctx: RecordContext, id: string | null) {
  const c = id ? ctx.contacts.get(id) : undefined
  if (!c) return undefined
  return {
    contactId: c.contactId,
    name: c.name,
    company: c.company ?? undefined,
    email: c.email ?? undefined,
    phone: c.phone ?? undefined,
    personalId: c.personalId ?? undefined,
    location: siteRef(ctx, c.locationSiteId),
    mailStopLocation: siteRef(ctx, c.mailStopSiteId),
  }
}
