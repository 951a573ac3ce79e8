// What a scan becomes on the Receive screens (single and bulk), and what a save sends: one home for
// both, and for the queue that sends saves later (outbox.js).
import { FINISHED } from './statuses.js'

/** The built-in carrier of the mailroom's own items: a scan that is no carrier's number, once confirmed. */
export const INTERNAL = { carrierId: 'MAILROOM', name: 'Internal item' }

export const UNKNOWN_FORMAT = 'Not a known carrier format — receive as internal item?'

/** The decoder's readings, one per carrier, best first (the server ranks them). */
function carriersOf(d, trackingNumber) {
  const seen = new Set()
  const out = []
  // Readings of the number the decode settled on first, then readings of other numbers in the scan.
  const ordered = [
    ...d.decodedCarriers.filter((c) => c.trackingNumber === trackingNumber),
    ...d.decodedCarriers.filter((c) => c.trackingNumber !== trackingNumber),
  ]
  for (const c of ordered) {
    if (seen.has(c.carrierId)) continue
    seen.add(c.carrierId)
    out.push({ carrierId: c.carrierId, name: c.name, service: c.service?.name })
  }
  return out
}

/**
 * What the decode answered, as the screen shows it and the save sends it. Where the decoder states
 * no carrier but has readings (FedEx 12 or Purolator, an IMpb or FedEx SmartPost), the best-ranked
 * one is chosen and the others stay one key away; with no reading at all the scan is no carrier's
 * number (`unknownFormat`) and is saved only as an internal item, once the clerk confirms.
 */
export function fromDecode(raw, d) {
  const p = d.package
  const trackingNumber = p.trackingNumber ?? raw.trim()
  const candidates = carriersOf(d, trackingNumber)
  const stated = p.carrier ? { carrierId: p.carrier.carrierId, name: p.carrier.name } : undefined
  const receiver = p.receiver?.contactId ? { id: p.receiver.contactId, label: p.receiver.name ?? '' } : null
  const finished = p.packageId && FINISHED.includes(p.currentStatus)
  const prior = finished
    ? {
        packageId: p.packageId,
        text: `Already handed over${p.givenTo?.name ? ` to ${p.givenTo.name}` : ''}.`,
        needsArchive: true,
      }
    : null
  return {
    raw,
    trackingNumber,
    carrier: stated ?? candidates[0],
    stated: Boolean(stated),
    candidates: stated ? candidates.filter((c) => c.carrierId === stated.carrierId).slice(0, 1) : candidates,
    unknownFormat: !stated && candidates.length === 0,
    service: p.service?.name ?? candidates[0]?.service,
    receiver,
    labelName: p.receiver?.name,
    packageId: p.packageId,
    // The decode's match of the label's name alone (a package on file names its own receiver instead).
    labelMatch: p.packageId ? null : receiver,
    held: p.packageId && !finished ? { packageId: p.packageId, status: p.currentStatus } : null,
    finished: prior,
  }
}

/** A scan the server could not decode (it did not answer): decoded when the queue sends it. */
export function undecoded(raw) {
  // A 2D payload's separators shown as spaces; the number itself comes from the decode, later.
  const shown = raw.trim().replace(/[\u0000-\u001f]+/g, ' ')
  return { raw, trackingNumber: shown, candidates: [], offline: true, receiver: null }
}

/** The Add body of a parcel; `customFields`: package.customFields as the API takes them (none: left out). */
export function packageBody(item, recipient, location, customFields = []) {
  return {
    package: {
      trackingNumber: item.trackingNumber,
      ...(item.carrier?.carrierId ? { carrier: { carrierId: item.carrier.carrierId } } : {}),
      ...(recipient ? { receiver: { contactId: recipient.id } } : {}),
      ...(customFields.length ? { customFields } : {}),
      ...(item.flags?.length ? { flags: item.flags } : {}),
    },
    lastActivity: {
      status: 'RECEIVED',
      ...(location.inboundSiteId
        ? {
            location: {
              inboundSiteId: location.inboundSiteId,
              ...(location.packageLocation ? { packageLocation: location.packageLocation } : {}),
            },
          }
        : {}),
    },
  }
}

/** A decoded item's carrier as the clerk settled it: a chosen reading, or internal once confirmed. */
export const withCarrier = (item, carrierId) =>
  carrierId === INTERNAL.carrierId
    ? { ...item, carrier: INTERNAL, unknownFormat: false, internal: true }
    : { ...item, carrier: item.candidates.find((c) => c.carrierId === carrierId) ?? item.carrier }

const clock = (iso) => new Date(iso).toLocaleTimeString([], { hour: '2-digit', minute: '2-digit', hourCycle: 'h23' })
const day = (iso) => new Date(iso).toLocaleDateString([], { day: 'numeric', month: 'short', year: 'numeric' })
const isToday = (iso, now) => new Date(iso).toDateString() === now.toDateString()

/**
 * The earlier package under a scanned number, finished with (handed over, returned, archived):
 * what the desk says of it ("Handed over to Ada Lovelace at 09:12 today") and whether receiving
 * the number again must first archive it (a package not archived keeps its number taken).
 * Undefined for one archived before today: carriers reuse numbers, and an old archived package
 * blocks nothing, so the scan is simply a new arrival.
 */
export function priorOf(record, now = new Date()) {
  const archived = record.archived === true
  if (!archived && !FINISHED.includes(record.currentStatus)) return undefined
  const at = (!archived && record.deliveryTime) || record.updateTimestamp
  const today = isToday(at, now)
  if (archived && !today) return undefined
  const when = today ? `at ${clock(at)} today` : `on ${day(at)}`
  const what = archived
    ? 'Archived'
    : record.currentStatus === 'RETURNED_TO_SENDER'
      ? 'Returned to sender'
      : `Handed over${record.givenTo?.name ? ` to ${record.givenTo.name}` : ''}`
  return { packageId: record.packageId, text: `${what} ${when}.`, today, needsArchive: !archived }
}

/** A decoded scan with what the package on file says (its DETAILED record): still held, or finished with. */
export function withRecord(item, record, now = new Date()) {
  const prior = priorOf(record, now)
  if (prior) return { ...item, held: null, finished: prior }
  const done = record.archived || FINISHED.includes(record.currentStatus)
  // Archived before today: a new arrival under a reused number (its old receiver is no guide).
  if (done) return { ...item, held: null, finished: null, receiver: item.labelMatch ?? null }
  return { ...item, held: { packageId: record.packageId, status: record.currentStatus }, finished: null }
}
