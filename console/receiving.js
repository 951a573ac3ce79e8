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
    held: p.packageId && !finished ? { packageId: p.packageId, status: p.currentStatus } : null,
    finished: finished ? { packageId: p.packageId, status: p.currentStatus, givenTo: p.givenTo?.name ?? '' } : null,
  }
}

/** A scan the server could not decode (it did not answer): decoded when the queue sends it. */
export function undecoded(raw) {
  // A 2D payload's separators shown as spaces; the number itself comes from the decode, later.
  const shown = raw.trim().replace(/[\u0000-\u001f]+/g, ' ')
  return { raw, trackingNumber: shown, candidates: [], offline: true, receiver: null }
}

export function packageBody(item, recipient, location) {
  return {
    package: {
      trackingNumber: item.trackingNumber,
      ...(item.carrier?.carrierId ? { carrier: { carrierId: item.carrier.carrierId } } : {}),
      ...(recipient ? { receiver: { contactId: recipient.id } } : {}),
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
