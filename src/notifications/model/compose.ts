import type { PackageRecord } from '../../packages/index.js'
import type { SiteRef } from '../../sites/index.js'
import type { NotificationKind } from './kinds.js'
import type { MailMessage } from '../delivery/mailer.js'
import type { NotificationSettings } from '../api/schemas.js'
import { renderEmail, type TemplateOverride, type TemplateView } from './templates.js'
import { localTime, type Place } from './place.js'
import { flagWords } from './flag-labels.js'

/** The members of a package record an email shows (the packages domain's record, read through its service). */
export interface PackageView {
  packageId: string
  trackingNumber: string
  currentStatus: string
  carrier?: { name: string; carrierId?: string }
  sender?: { name: string; company?: string }
  givenTo?: { name: string; contactId?: string }
  currentLocation?: {
    inboundSiteId: string
    name: string
    locationHierarchy?: string
    topTier?: { inboundSiteId: string; name: string }
  }
  packageLocation?: string
  deliveryTime?: string
  insertTimestamp?: string
  updateTimestamp?: string
  pickupCode?: string
  flags?: string[]
}

/**
 * A package record as an email reads it. The record's `currentLocation` is a schema reference
 * (`SiteRef`, typed unknown by TypeBox): taken when it is a site, else the parcel has no place.
 */
export function viewOf(record: PackageRecord): PackageView {
  const at = record.currentLocation as Partial<SiteRef> | null | undefined
  const { currentLocation: _, ...rest } = record
  return typeof at?.inboundSiteId === 'string' && typeof at.name === 'string'
    ? { ...rest, currentLocation: at as SiteRef }
    : rest
}

/**
 * The pickup code a recipient shows at the desk. The pickup-code feature (issue 17.4, branch
 * h/pickups) adds `pickupCode` to the package record; until it is there, no code is shown.
 */
export function pickupCodeOf(p: PackageView): string | undefined {
  return typeof p.pickupCode === 'string' && p.pickupCode ? p.pickupCode : undefined
}

const QR_CID = 'pickup-code-qr@mailroom'

/**
 * The mailroom's own items (an internal envelope, a scan the clerk confirmed as no carrier's number)
 * are received under the built-in MAILROOM carrier: their email says "item" and names no carrier.
 */
const INTERNAL_CARRIER = 'MAILROOM'
const isInternal = (p: PackageView) => p.carrier?.carrierId === INTERNAL_CARRIER

/**
 * A subscription's own parts of a kind's template in the email's language: those given for the
 * language (`templates.fr.ARRIVAL`) over those at the top (`templates.ARRIVAL`), which are written
 * in the subscription's language and so apply only to emails in it: a French contact of an English
 * subscription never gets its English subject over a French body.
 */
function templateOverride(
  settings: NotificationSettings,
  kind: NotificationKind,
  language: string,
): TemplateOverride | undefined {
  const byLanguage = (settings.templates as Record<string, Partial<Record<NotificationKind, TemplateOverride>>>)[
    language
  ]?.[kind]
  const base = language === (settings.language ?? 'en') ? settings.templates[kind] : undefined
  return byLanguage || base ? { ...base, ...byLanguage } : undefined
}

export interface ComposeInput {
  notificationId: string
  kind: NotificationKind
  step: number
  to: string
  recipientName: string
  packages: PackageView[]
  settings: NotificationSettings
  unsubscribeUrl: string
  /** The host part of Message-IDs (RFC 5322 §3.6.4: an id unique to this service). */
  messageIdDomain: string
  now: Date
  /** PICKED_UP: who collected, when a pickup recorded it (else the packages' givenTo is shown). */
  collector?: { name: string; onBehalf: boolean }
  /** ARRIVAL and reminders: the opening hours of the site to collect at, when it has them. */
  openingHours?: string
  /** The recipient's own language, over the subscription's. */
  language?: string
  /** The parcels' places by site id (jobs/places.ts); a site not in it shows the record's names. */
  places?: ReadonlyMap<string, Place>
  /** The time zone times are written in when no parcel has a place (NOTIFY_TIME_ZONE). */
  timeZone?: string
}

/** One email: the view its template sees, rendered, with the QR code of the pickup code inline. */
export async function composeEmail(input: ComposeInput): Promise<MailMessage> {
  const { packages, kind } = input
  const codes = [...new Set(packages.map(pickupCodeOf).filter((c): c is string => c !== undefined))]
  // Parcels of one arrival share a code; when they do not, each line shows its own and no single code is offered.
  const pickupCode = codes.length === 1 ? codes[0]! : ''
  const site = packages.find((p) => p.currentLocation)?.currentLocation
  const placeOf = (p: PackageView) =>
    p.currentLocation ? input.places?.get(p.currentLocation.inboundSiteId) : undefined
  const place = site ? input.places?.get(site.inboundSiteId) : undefined
  const language = input.language ?? input.settings.language ?? 'en'
  const timeZone = place?.timeZone ?? input.timeZone ?? 'UTC'
  const collected = packages.map((p) => p.deliveryTime ?? p.updateTimestamp).find(Boolean)
  const oldest = packages.map((p) => p.insertTimestamp).filter((t): t is string => !!t)
  const view: TemplateView = {
    recipientName: input.recipientName,
    count: packages.length,
    one: packages.length === 1,
    packages: packages.map((p) => ({
      trackingNumber: p.trackingNumber,
      carrier: isInternal(p) ? '' : (p.carrier?.name ?? ''),
      sender: p.sender ? [p.sender.name, p.sender.company].filter(Boolean).join(', ') : '',
      location: placeOf(p)?.place ?? p.currentLocation?.locationHierarchy ?? p.currentLocation?.name ?? '',
      packageLocation: p.packageLocation ?? '',
      pickupCode: codes.length > 1 ? (pickupCodeOf(p) ?? '') : '',
      flags: flagWords(p.flags, language),
    })),
    perishable: kind !== 'PICKED_UP' && packages.some((p) => p.flags?.includes('PERISHABLE')),
    // Where to collect: the building part of the place (the shelf itself is in each parcel's line).
    siteName:
      place?.where ??
      (site ? (site.topTier && site.topTier.inboundSiteId !== 'EMPTY_SITE' ? site.topTier.name : site.name) : ''),
    openingHours: input.openingHours ?? '',
    pickupCode: kind === 'PICKED_UP' ? '' : pickupCode,
    qrCodeSrc: `cid:${QR_CID}`,
    step: input.step,
    hoursWaiting: oldest.length
      ? String(Math.max(0, Math.round((input.now.getTime() - Math.min(...oldest.map(Date.parse))) / 360_000) / 10))
      : '',
    collectedBy: input.collector?.name ?? packages.find((p) => p.givenTo)?.givenTo?.name ?? '',
    onBehalf: input.collector?.onBehalf ?? false,
    // In the place's time zone, as the recipient's clock shows it.
    collectedAt: localTime(collected ? new Date(collected) : input.now, timeZone, language),
    unsubscribeUrl: input.unsubscribeUrl,
    aParcel: packages.some(isInternal) ? 'An item' : 'A parcel',
    parcels: packages.some(isInternal) ? 'items' : 'parcels',
  }
  const email = renderEmail(kind, templateOverride(input.settings, kind, language), view, language)
  const attachments: MailMessage['attachments'] = []
  if (view.pickupCode) {
    // Loaded with the first pickup code drawn: a process that sends none never loads it.
    const { default: QRCode } = await import('qrcode')
    attachments.push({
      filename: 'pickup-code.png',
      content: await QRCode.toBuffer(view.pickupCode, { type: 'png', margin: 1, width: 320 }),
      contentType: 'image/png',
      cid: QR_CID,
    })
  }
  return {
    to: input.to,
    ...email,
    messageId: `<${input.notificationId}@${input.messageIdDomain}>`,
    headers: {
      // RFC 2369 and RFC 8058: mail clients offer a one-click unsubscribe that POSTs to the URL.
      'List-Unsubscribe': `<${input.unsubscribeUrl}>`,
      'List-Unsubscribe-Post': 'List-Unsubscribe=One-Click',
      // RFC 3834: an automatic message, not a reply to anything; autoresponders stay quiet.
      'Auto-Submitted': 'auto-generated',
    },
    attachments,
  }
}
