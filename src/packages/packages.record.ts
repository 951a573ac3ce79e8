import type { PackageRow } from './packages.repo.js'
import type { PackageRecord } from './packages.schemas.js'
import type { SiteInfo } from '../sites/sites.service.js'
import type { ContactLike } from './packages.deps.js'

/** Everything needed to render a batch of packages (filled by the read model, packages.read.ts). */
export interface RecordContext {
  sites: Map<string, SiteInfo>
  contacts: Map<string, ContactLike>
  carriers: Map<string, { carrierId: string; name: string }>
  customFields: Map<string, { name: string; status: string }>
  zips: Map<string, string>
}

function siteRef(ctx: RecordContext, id: string | null | undefined) {
  const s = id ? ctx.sites.get(id) : undefined
  if (!s) return undefined
  const { locationId: _l, status: _s, deleted: _d, ...ref } = s
  return ref
}

function contact(ctx: RecordContext, id: string | null) {
  const c = id ? ctx.contacts.get(id) : undefined
  if (!c) return undefined
  return {
    contactId: c.contactId, name: c.name, company: c.company ?? undefined, email: c.email ?? undefined, phone: c.phone ?? undefined,
    personalId: c.personalId ?? undefined, location: siteRef(ctx, c.locationSiteId), mailStopLocation: siteRef(ctx, c.mailStopSiteId),
  }
}

const opt = <T>(v: T | null): T | undefined => (v === null ? undefined : v)

export function toRecord(ctx: RecordContext, r: PackageRow): PackageRecord {
  const carrier = r.carrier_id ? ctx.carriers.get(r.carrier_id) : undefined
  const site = r.site_id ? ctx.sites.get(r.site_id) : undefined
  return {
    packageId: r.package_id,
    trackingNumber: r.tracking_number,
    subId: r.sub_id,
    assetType: r.asset_type,
    carrier: carrier ? { carrierId: carrier.carrierId, name: carrier.name } : undefined,
    currentStatus: r.current_status,
    damaged: r.damaged,
    archived: r.archived,
    timezone: opt(r.timezone),
    sender: contact(ctx, r.sender_id),
    receiver: contact(ctx, r.receiver_id),
    givenTo: contact(ctx, r.given_to_id),
    comment: opt(r.comment),
    confirmationType: opt(r.confirmation_type),
    additionalConfirmationType: opt(r.additional_confirmation_type),
    customFields: r.custom_fields.map((v) => ({ customFieldId: v.customFieldId, name: ctx.customFields.get(v.customFieldId)?.name ?? '', status: ctx.customFields.get(v.customFieldId)?.status ?? 'INACTIVE', value: v.value })),
    currentLocation: siteRef(ctx, r.site_id),
    packageLocation: opt(r.package_location),
    lockerBank: opt(r.locker_bank),
    lockerUnit: opt(r.locker_unit),
    userName: r.user_name,
    receiveClerk: opt(r.receive_clerk),
    deliveryClerk: opt(r.delivery_clerk),
    deliveryTime: r.delivery_time?.toISOString(),
    currentRoute: r.current_route ? { routeName: r.current_route } : undefined,
    locationZip: site?.locationId ? ctx.zips.get(site.locationId) : undefined,
    insertTimestamp: r.created_at.toISOString(),
    updateTimestamp: r.updated_at.toISOString(),
    version: r.version,
  }
}
