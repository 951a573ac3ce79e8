/**
 * Every carrier the decoder can name: its catalogue name (as the built-in carrier catalogue spells
 * it, migrations 0003 and 0011, so both agree) and its public tracking page for one number ("%s"
 * stands for the number). Declared once; CarrierCode, names and links derive from it.
 */
export const CARRIERS = {
  UPS: { name: 'UPS', trackingUrl: 'https://www.ups.com/track?tracknum=%s' },
  FEDEX: { name: 'FedEx', trackingUrl: 'https://www.fedex.com/fedextrack/?trknbr=%s' },
  USPS: { name: 'USPS', trackingUrl: 'https://tools.usps.com/go/TrackConfirmAction?tLabels=%s' },
  DHL_EXPRESS: {
    name: 'DHL Express',
    trackingUrl: 'https://www.dhl.com/global-en/home/tracking/tracking-express.html?tracking-id=%s',
  },
  DHL_ECOMMERCE: {
    name: 'DHL eCommerce',
    trackingUrl: 'https://www.dhl.com/global-en/home/tracking/tracking-ecommerce.html?tracking-id=%s',
  },
  AMAZON: { name: 'Amazon Logistics', trackingUrl: 'https://track.amazon.com/tracking/%s' },
  ONTRAC: { name: 'OnTrac', trackingUrl: 'https://www.ontrac.com/tracking/?number=%s' },
  // LaserShip is part of OnTrac now; its numbers are tracked on OnTrac's page.
  LASERSHIP: { name: 'LaserShip', trackingUrl: 'https://www.ontrac.com/tracking/?number=%s' },
  CANADA_POST: {
    name: 'Canada Post',
    trackingUrl: 'https://www.canadapost-postescanada.ca/track-reperage/en#/search?searchFor=%s',
  },
  PUROLATOR: { name: 'Purolator', trackingUrl: 'https://www.purolator.com/en/shipping/tracker?searchValue=%s' },
  ROYAL_MAIL: { name: 'Royal Mail', trackingUrl: 'https://www.royalmail.com/track-your-item#/tracking-results/%s' },
  DPD: { name: 'DPD', trackingUrl: 'https://www.dpdgroup.com/nl/mydpd/my-parcels/track?lang=en&parcelNumber=%s' },
  CANPAR: { name: 'Canpar', trackingUrl: 'https://www.canpar.com/en/track/tracking.jsp?reference=%s&locale=en' },
  OLD_DOMINION: {
    name: 'Old Dominion Freight Line',
    trackingUrl: 'https://www.odfl.com/us/en/tools/trace-track-ltl-freight/trace.html?proNumbers=%s',
  },
  SPEE_DEE: { name: 'Spee-Dee Delivery', trackingUrl: 'https://www.speedeedelivery.com/track/?tracking=%s' },
  YODEL: { name: 'Yodel', trackingUrl: 'https://www.yodel.co.uk/tracking/%s' },
  YUNEXPRESS: { name: 'YunExpress', trackingUrl: 'https://www.yuntrack.com/parcelTracking?id=%s' },
  GOFO: { name: 'GOFO Express', trackingUrl: 'https://www.gofoexpress.com/tracking.html?searchID=%s' },
  LANDMARK: { name: 'Landmark Global', trackingUrl: 'https://track.landmarkglobal.com/?search=%s' },
  MAILROOM: { name: 'Mailroom (internal)', trackingUrl: undefined },
} as const satisfies Record<string, { name: string; trackingUrl: string | undefined }>

export type CarrierCode = keyof typeof CARRIERS

export const CARRIER_CODES = Object.keys(CARRIERS) as CarrierCode[]

export const CARRIER_NAMES: Readonly<Record<CarrierCode, string>> = Object.fromEntries(
  CARRIER_CODES.map((c) => [c, CARRIERS[c].name]),
) as Record<CarrierCode, string>

/** Each template split once around its "%s": building a link is then two concatenations. */
const URL_PARTS: ReadonlyMap<CarrierCode, readonly [string, string]> = new Map(
  CARRIER_CODES.flatMap((c) => {
    const template: string | undefined = CARRIERS[c].trackingUrl
    if (template === undefined) return []
    const at = template.indexOf('%s')
    return [[c, [template.slice(0, at), template.slice(at + 2)] as const] as const]
  }),
)

/** The carrier's public tracking page for `trackingNumber`; undefined for mailroom's own numbers. */
export function trackingUrlOf(carrier: CarrierCode, trackingNumber: string): string | undefined {
  const parts = URL_PARTS.get(carrier)
  return parts === undefined ? undefined : parts[0] + encodeURIComponent(trackingNumber) + parts[1]
}

/**
 * Standard Carrier Alpha Codes (NMFTA) that carriers put in the SCAC element of ISO 15434 format 01.
 * Only codes we are sure of: an unknown SCAC names no carrier, and the tracking field is then
 * matched on its own.
 */
const SCAC_CARRIERS: ReadonlyMap<string, CarrierCode> = new Map<string, CarrierCode>([
  ['UPSN', 'UPS'],
  ['FDEG', 'FEDEX'],
  ['FDEN', 'FEDEX'],
  ['FDEB', 'FEDEX'],
  ['FDXE', 'FEDEX'],
  ['FDXG', 'FEDEX'],
  ['FXFE', 'FEDEX'],
  ['USPS', 'USPS'],
  ['EMSY', 'ONTRAC'],
  ['AMZL', 'AMAZON'],
  ['ODFL', 'OLD_DOMINION'],
])

export function carrierOfScac(scac: string): CarrierCode | undefined {
  return SCAC_CARRIERS.get(scac.toUpperCase())
}
