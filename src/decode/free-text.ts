import { compactNumber, identifyNamed, identifyTrackingNumber } from './tracking/identify.js'
import { RANK, type Match } from './tracking/match.js'
import type { CarrierCode } from './types.js'

/**
 * Carriers' own tracking pages. A QR code holding one of these URLs names its carrier as surely as a
 * SCAC does. DHL is left out: one domain serves DHL Express and DHL eCommerce alike.
 */
const CARRIER_HOSTS: ReadonlyArray<readonly [string, CarrierCode]> = [
  ['ups.com', 'UPS'],
  ['fedex.com', 'FEDEX'],
  ['usps.com', 'USPS'],
  ['ontrac.com', 'ONTRAC'],
  ['lasership.com', 'LASERSHIP'],
  ['canadapost.ca', 'CANADA_POST'],
  ['canadapost-postescanada.ca', 'CANADA_POST'],
  ['purolator.com', 'PUROLATOR'],
  ['royalmail.com', 'ROYAL_MAIL'],
  ['dpd.com', 'DPD'],
  ['dpd.co.uk', 'DPD'],
  ['dpd.de', 'DPD'],
  ['dpdgroup.com', 'DPD'],
  ['track.amazon.com', 'AMAZON'],
  ['canpar.com', 'CANPAR'],
  ['odfl.com', 'OLD_DOMINION'],
  ['speedeedelivery.com', 'SPEE_DEE'],
  ['yodel.co.uk', 'YODEL'],
  ['yuntrack.com', 'YUNEXPRESS'],
  ['gofoexpress.com', 'GOFO'],
  ['landmarkglobal.com', 'LANDMARK'],
]

/** Query parameters carriers use for the tracking number on their tracking pages. */
const TRACKING_PARAMS =
  /^(?:tracknum|tracknums|tracknumbers|trackingnumber|trackingnumbers|trknbr|tlabels|tracking|track|pin|parcelnumber|id|number|pronumbers|searchid|search|searchvalue|searchfor|reference|barcode|tracking-id)$/i

const URL_START = /^https?:\/\//i

function hostCarrier(host: string): CarrierCode | undefined {
  const h = host.toLowerCase()
  for (const [suffix, carrier] of CARRIER_HOSTS) {
    if (h === suffix || h.endsWith(`.${suffix}`)) return carrier
  }
  return undefined
}

/** Readings from a carrier tracking URL; empty when the URL is not a known carrier's. */
function fromCarrierUrl(text: string): Match[] {
  let url: URL
  try {
    url = new URL(text.trim())
  } catch {
    return []
  }
  const carrier = hostCarrier(url.hostname)
  if (carrier === undefined) return []
  const values = [...url.searchParams].filter(([k]) => TRACKING_PARAMS.test(k)).flatMap(([, v]) => v.split(','))
  // Single-page tracking sites keep the number in the fragment ("#/search?searchFor=…").
  const tokens = [...values, ...url.pathname.split('/'), ...url.hash.split(/[/?&=#]/)]
    .map(compactNumber)
    .filter((t) => /^[0-9A-Z]{8,40}$/.test(t))
  for (const token of tokens) {
    const own = identifyTrackingNumber(token, { carrier })
    if (own.length > 0) return identifyNamed(token, carrier, undefined)
  }
  const param = values.map(compactNumber).find((t) => /^[0-9A-Z]{8,40}$/.test(t))
  return param === undefined ? [] : identifyNamed(param, carrier, undefined)
}

/** A passed check, or a carrier's own prefix where its format defines no check (TBA…, 1LS…). */
function vouched(m: Match): boolean {
  return m.checkDigitValid === true || (m.checkDigitValid === null && m.rank >= RANK.ALTERNATE)
}

/**
 * Tracking numbers inside free text (QR payloads, unrecognised fields): carrier URLs first, then any
 * token that a carrier-specific rule recognises and whose check holds (or that has none). Bare shapes are not trusted
 * here: a random 12-digit token in a sentence is no FedEx number.
 */
export function findInFreeText(text: string): Match[] {
  if (URL_START.test(text)) {
    const named = fromCarrierUrl(text)
    if (named.length > 0) return named
  }
  const out: Match[] = []
  for (const token of text.toUpperCase().split(/[^0-9A-Z%]+/)) {
    if (token.length < 10 || token.length > 40) continue
    for (const m of identifyTrackingNumber(token, { distinctiveOnly: true })) if (vouched(m)) out.push(m)
  }
  return out
}
