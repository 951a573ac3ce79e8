/**
 * Service names keyed by the codes carriers put in their numbers and symbols. Unknown codes are
 * still reported (code without name); a name is never guessed.
 */

/**
 * The two characters after the shipper number in a 1Z number. UPS does not publish this list; these
 * are the long-observed assignments (e.g. osiris.978.org/~alex/ups.html, tracking_number_data).
 */
const UPS_1Z_SERVICE: ReadonlyMap<string, string> = new Map([
  ['01', 'Next Day Air'],
  ['02', '2nd Day Air'],
  ['03', 'Ground'],
  ['12', '3 Day Select'],
  ['13', 'Next Day Air Saver'],
  ['15', 'Next Day Air Early A.M.'],
  ['22', 'Ground - Returns Plus - Three Pickup Attempts'],
  ['32', 'Next Day Air Early A.M. - COD'],
  ['33', 'Next Day Air Early A.M. - Saturday Delivery, COD'],
  ['41', 'Next Day Air Early A.M. - Saturday Delivery'],
  ['42', 'Ground - Signature Required'],
  ['44', 'Next Day Air - Saturday Delivery'],
  ['66', 'Worldwide Express'],
  ['72', 'Ground - Collect on Delivery'],
  ['78', 'Ground - Returns Plus - One Pickup Attempt'],
  ['90', 'Ground - Returns - UPS Prints and Mails Label'],
  ['A0', 'Next Day Air Early A.M. - Adult Signature Required'],
  ['A1', 'Next Day Air Early A.M. - Saturday Delivery, Adult Signature Required'],
  ['A2', 'Next Day Air - Adult Signature Required'],
  ['A8', 'Ground - Adult Signature Required'],
  ['A9', 'Next Day Air Early A.M. - Adult Signature Required, COD'],
  ['AA', 'Next Day Air Early A.M. - Saturday Delivery, Adult Signature Required, COD'],
  ['YW', 'SurePost - Delivered by USPS'],
])

/**
 * UPS shipping service codes (UPS Developer Kit), also the MaxiCode class of service, zero-padded.
 * A different code list from the 1Z service codes above: "14" here is Next Day Air Early, in a 1Z
 * number it is unassigned; never look one up in the other.
 */
const UPS_SERVICE_CODES: ReadonlyMap<string, string> = new Map([
  ['01', 'Next Day Air'],
  ['02', '2nd Day Air'],
  ['03', 'Ground'],
  ['07', 'Worldwide Express'],
  ['08', 'Worldwide Expedited'],
  ['11', 'Standard'],
  ['12', '3 Day Select'],
  ['13', 'Next Day Air Saver'],
  ['14', 'Next Day Air Early'],
  ['54', 'Worldwide Express Plus'],
  ['59', '2nd Day Air A.M.'],
  ['65', 'Worldwide Saver'],
  ['70', 'Access Point Economy'],
  ['82', 'Today Standard'],
  ['83', 'Today Dedicated Courier'],
  ['84', 'Today Intercity'],
  ['85', 'Today Express'],
  ['86', 'Today Express Saver'],
  ['96', 'Worldwide Express Freight'],
])

/** The name of a 1Z service code; undefined for a code outside the 1Z table (no guess). */
export function ups1ZServiceName(code: string): string | undefined {
  return UPS_1Z_SERVICE.get(code)
}

/** The service letter of a UPS waybill number (tracking_number_data); others have no known name. */
const UPS_WAYBILL_SERVICE: ReadonlyMap<string, string> = new Map([
  ['J', 'Next Day Express'],
  ['K', 'Ground'],
  ['V', 'Worldwide Express Saver'],
])

export function upsWaybillServiceName(letter: string): string | undefined {
  return UPS_WAYBILL_SERVICE.get(letter)
}

/** Every service code of the 1Z table, in table order. */
export const UPS_1Z_SERVICE_CODES: readonly string[] = [...UPS_1Z_SERVICE.keys()]

/** MaxiCode class of service is three digits, e.g. "001"; the service code is its last two. */
export function upsServiceClassName(serviceClass: string): string | undefined {
  const code = serviceClass.length === 3 && serviceClass.startsWith('0') ? serviceClass.slice(1) : serviceClass
  return UPS_SERVICE_CODES.get(code)
}

/** DPD service codes (DPD Parcel Label Specification), the three digits after the parcel number. */
const DPD_SERVICE: ReadonlyMap<string, string> = new Map([
  ['101', 'DPD Classic'],
  ['102', 'DPD Classic, hazardous goods'],
  ['105', 'DPD Classic, ex works'],
  ['106', 'DPD Classic, ex works, hazardous goods'],
  ['109', 'DPD Classic, COD'],
  ['110', 'DPD Classic, COD, hazardous goods'],
  ['113', 'DPD Classic, exchange'],
  ['136', 'DPD Classic small parcel'],
  ['154', 'DPD Parcel Letter'],
  ['155', 'DPD Guarantee'],
  ['161', 'DPD Guarantee, COD'],
  ['179', 'DPD 10:00'],
  ['191', 'DPD 10:00, COD'],
  ['225', 'DPD 12:00'],
  ['237', 'DPD 12:00, COD'],
  ['350', 'DPD 8:30'],
])

export function dpdServiceName(code: string): string | undefined {
  return DPD_SERVICE.get(code)
}

const DOMESTIC = 'Domestic or bilateral use'

/**
 * UPU S10 service indicator: the first letter gives the class of item (UPU standard S10, table of
 * service indicator ranges); the second letter is the operator's own choice, except where a range
 * is narrower (Q: only QA–QM; the domestic and bilateral ranges).
 */
export function s10ServiceName(indicator: string): string | undefined {
  const second = indicator.charAt(1)
  switch (indicator.charAt(0)) {
    case 'E':
      return 'EMS'
    case 'C':
      return 'Parcel post'
    case 'H':
      return 'E-commerce parcel'
    case 'L':
      return 'Letter post express'
    case 'R':
      return 'Registered letter post'
    case 'V':
      return 'Insured letter post'
    case 'U':
      return 'Letter post'
    case 'M':
      return 'M-bag'
    case 'Q':
      return second <= 'M' ? 'International business reply' : undefined
    case 'B':
    case 'D':
    case 'N':
    case 'P':
    case 'Z':
      return DOMESTIC
    case 'A':
      return second >= 'V' ? DOMESTIC : undefined
    case 'G':
      return second === 'A' || second === 'D' ? DOMESTIC : undefined
    default:
      return undefined
  }
}
