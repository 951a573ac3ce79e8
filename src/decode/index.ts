/**
 * decode: scanned label text → structured package data. Pure functions only: no database, no HTTP,
 * no I/O. The HTTP layer builds the decode endpoint on `decodeScan`; the tracking-number generator
 * uses `mailroomCheckChar`.
 */
export type { CarrierCode, DecodeResult } from './types.js'
export { decodeScan, MAX_SCAN_LENGTH } from './decode-scan.js'
export { DecodeError } from './errors.js'
export { CROCKFORD_ALPHABET, isValidMailroomNumber, mailroomCheckChar } from './mailroom-number.js'
export {
  codePointTable,
  fedexCheckDigit,
  gs1CheckDigit,
  iso7064Mod37_36CheckChar,
  isValidFedexCheckDigit,
  isValidGs1CheckDigit,
  isValidIso7064Mod37_36,
  isValidLuhn,
  isValidLuhnModN,
  isValidMod7,
  isValidS10,
  isValidUpsCheckDigit,
  luhnCheckDigit,
  luhnModNCheckChar,
  mod7CheckDigit,
  s10CheckDigit,
  upsCheckDigit,
} from './check-digits.js'
export {
  ImageDecodeBusyError,
  ImageDecodeError,
  ImageDecodePool,
  ImageDecodeTimeoutError,
  ImageTooLargeError,
  UnsupportedImageFormatError,
} from './image/index.js'
export type { FoundBarcode, ImageDecodePoolOptions, LabelRead } from './image/index.js'
export { MAILROOM_BODY_LENGTH, MAILROOM_PREFIX } from './mailroom-number.js'
export { isAlpha2Country } from './tables/countries.js'
export { findShipTo, isCityLine, nameWords, parsePersonName, unitOf } from './label/index.js'
export type { PersonName, ShipTo } from './label/index.js'
