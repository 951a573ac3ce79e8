/**
 * The recipient printed on a label: from the label's text lines (OCR's, or typed) to the SHIP TO
 * block's person name, company, address lines and unit. Pure functions; the OCR itself is in
 * ../image (it runs in the photo decode threads).
 */
export { findShipTo, type ShipTo } from './ship-to.js'
export { nameWords, parsePersonName, type PersonName } from './person-name.js'
export { isCityLine, unitOf } from './address-lines.js'
