/**
 * Check-digit schemes used by parcel identifiers. Each scheme has a `…CheckDigit(data)` that
 * computes the check for a body (throws RangeError on characters outside the scheme) and an
 * `isValid…(whole)` that takes the full number, check last, and never throws.
 * Hot paths call the isValid… forms on already-shaped strings: no regex, no allocation.
 */

function digit(s: string, i: number): number {
  const d = s.charCodeAt(i) - 48
  return d >= 0 && d <= 9 ? d : -1
}

function badInput(scheme: string, data: string): RangeError {
  return new RangeError(`${scheme}: invalid input ${JSON.stringify(data)}`)
}

// ── GS1 mod 10 (GS1 General Specifications §7.9.1; also USPS IMpb, Pub. 199, and FedEx Ground).
// Weights 3,1,3,1… starting from the rightmost data digit.
function gs1Sum(s: string, end: number): number {
  let sum = 0
  let weight = 3
  for (let i = end - 1; i >= 0; i--) {
    const d = digit(s, i)
    if (d < 0) return -1
    sum += d * weight
    weight = 4 - weight
  }
  return sum
}

export function gs1CheckDigit(data: string): number {
  const sum = data.length === 0 ? -1 : gs1Sum(data, data.length)
  if (sum < 0) throw badInput('GS1 mod 10', data)
  return (10 - (sum % 10)) % 10
}

export function isValidGs1CheckDigit(whole: string): boolean {
  const n = whole.length
  if (n < 2) return false
  const sum = gs1Sum(whole, n - 1)
  return sum >= 0 && (10 - (sum % 10)) % 10 === digit(whole, n - 1)
}

// ── UPS 1Z (also OnTrac C/D numbers). Letters fold onto digits as (ASCII − 63) mod 10, so A→2,
// B→3 … J→1 …; characters at odd 1-based positions weigh 1, at even positions 2; check = −sum mod 10.
function upsValue(s: string, i: number): number {
  const c = s.charCodeAt(i)
  if (c >= 48 && c <= 57) return c - 48
  if (c >= 65 && c <= 90) return (c - 63) % 10
  return -1
}

function upsSum(s: string, end: number): number {
  let sum = 0
  for (let i = 0; i < end; i++) {
    const v = upsValue(s, i)
    if (v < 0) return -1
    sum += i % 2 === 0 ? v : v * 2
  }
  return sum
}

export function upsCheckDigit(data: string): number {
  const sum = data.length === 0 ? -1 : upsSum(data, data.length)
  if (sum < 0) throw badInput('UPS mod 10', data)
  return (10 - (sum % 10)) % 10
}

/** `whole` is the checked part plus its check character: for 1Z numbers, everything after "1Z". */
export function isValidUpsCheckDigit(whole: string): boolean {
  const n = whole.length
  if (n < 2) return false
  const sum = upsSum(whole, n - 1)
  return sum >= 0 && (10 - (sum % 10)) % 10 === digit(whole, n - 1)
}

// ── FedEx Express mod 11: weights 1,3,7 repeating from the rightmost data digit; check =
// (sum mod 11) mod 10, so remainders 0 and 10 both give 0.
function fedexRemainder(s: string, end: number): number {
  let sum = 0
  let k = 0
  for (let i = end - 1; i >= 0; i--) {
    const d = digit(s, i)
    if (d < 0) return -1
    sum += d * (k === 0 ? 1 : k === 1 ? 3 : 7)
    k = k === 2 ? 0 : k + 1
  }
  return sum % 11
}

export function fedexCheckDigit(data: string): number {
  const r = data.length === 0 ? -1 : fedexRemainder(data, data.length)
  if (r < 0) throw badInput('FedEx mod 11', data)
  return r % 10
}

export function isValidFedexCheckDigit(whole: string): boolean {
  const n = whole.length
  if (n < 2) return false
  const r = fedexRemainder(whole, n - 1)
  return r >= 0 && r % 10 === digit(whole, n - 1)
}

// ── Luhn mod 10 (ISO/IEC 7812-1 annex B), as Purolator uses it.
function luhnSum(s: string, end: number, doubleFirst: boolean): number {
  let sum = 0
  let dbl = doubleFirst
  for (let i = end - 1; i >= 0; i--) {
    let d = digit(s, i)
    if (d < 0) return -1
    if (dbl) d = d > 4 ? d * 2 - 9 : d * 2
    sum += d
    dbl = !dbl
  }
  return sum
}

export function luhnCheckDigit(data: string): number {
  const sum = data.length === 0 ? -1 : luhnSum(data, data.length, true)
  if (sum < 0) throw badInput('Luhn', data)
  return (10 - (sum % 10)) % 10
}

export function isValidLuhn(whole: string): boolean {
  if (whole.length < 2) return false
  const sum = luhnSum(whole, whole.length, false)
  return sum >= 0 && sum % 10 === 0
}

// ── Mod 7 (DHL Express waybills): the check is the data read as an integer, modulo 7.
function mod7(s: string, end: number): number {
  let r = 0
  for (let i = 0; i < end; i++) {
    const d = digit(s, i)
    if (d < 0) return -1
    r = (r * 10 + d) % 7
  }
  return r
}

export function mod7CheckDigit(data: string): number {
  const r = data.length === 0 ? -1 : mod7(data, data.length)
  if (r < 0) throw badInput('mod 7', data)
  return r
}

export function isValidMod7(whole: string): boolean {
  const n = whole.length
  if (n < 2) return false
  const r = mod7(whole, n - 1)
  return r >= 0 && r === digit(whole, n - 1)
}

// ── UPU S10 (UPU standard S10 §5): weights 8,6,4,2,3,5,9,7 over the eight serial digits;
// check = 11 − (sum mod 11), with 10 → 0 and 11 → 5.
const S10_WEIGHTS = [8, 6, 4, 2, 3, 5, 9, 7] as const

function s10Check(serial: string, offset: number): number {
  let sum = 0
  for (let i = 0; i < 8; i++) {
    const d = digit(serial, offset + i)
    if (d < 0) return -1
    sum += d * (S10_WEIGHTS[i] ?? 0)
  }
  const c = 11 - (sum % 11)
  return c === 10 ? 0 : c === 11 ? 5 : c
}

export function s10CheckDigit(serial: string): number {
  const c = serial.length === 8 ? s10Check(serial, 0) : -1
  if (c < 0) throw badInput('S10', serial)
  return c
}

const S10_SHAPE = /^[A-Z]{2}\d{9}[A-Z]{2}$/

/** Whole S10 identifier, e.g. "RB123456785GB". The check covers only the eight serial digits. */
export function isValidS10(whole: string): boolean {
  return S10_SHAPE.test(whole) && s10Check(whole, 2) === digit(whole, 10)
}

// ── ISO/IEC 7064 MOD 37,36 hybrid system over 0-9A-Z (DPD parcel label check character).
const ALNUM36 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ'

function alnum36(s: string, i: number): number {
  const c = s.charCodeAt(i)
  if (c >= 48 && c <= 57) return c - 48
  if (c >= 65 && c <= 90) return c - 55
  return -1
}

function mod37_36Product(s: string, end: number): number {
  let p = 36
  for (let i = 0; i < end; i++) {
    const v = alnum36(s, i)
    if (v < 0) return -1
    let x = (p + v) % 36
    if (x === 0) x = 36
    p = (x * 2) % 37
  }
  return p
}

export function iso7064Mod37_36CheckChar(data: string): string {
  const p = data.length === 0 ? -1 : mod37_36Product(data, data.length)
  if (p < 0) throw badInput('ISO 7064 MOD 37,36', data)
  return ALNUM36.charAt((37 - p) % 36)
}

export function isValidIso7064Mod37_36(whole: string): boolean {
  const n = whole.length
  if (n < 2) return false
  const p = mod37_36Product(whole, n - 1)
  return p >= 0 && ALNUM36.charAt((37 - p) % 36) === whole.charAt(n - 1)
}

// ── Luhn mod N over an arbitrary alphabet (the code point of a character is its index).
export interface CodePointTable {
  readonly alphabet: string
  /** ASCII code → code point, −1 outside the alphabet. */
  readonly index: Int8Array
}

export function codePointTable(alphabet: string): CodePointTable {
  const index = new Int8Array(128).fill(-1)
  for (let i = 0; i < alphabet.length; i++) index[alphabet.charCodeAt(i)] = i
  return { alphabet, index }
}

function luhnModNSum(s: string, end: number, table: CodePointTable, doubleFirst: boolean): number {
  const n = table.alphabet.length
  let sum = 0
  let factor = doubleFirst ? 2 : 1
  for (let i = end - 1; i >= 0; i--) {
    const c = s.charCodeAt(i)
    const cp = c < 128 ? (table.index[c] ?? -1) : -1
    if (cp < 0) return -1
    const addend = cp * factor
    sum += Math.floor(addend / n) + (addend % n)
    factor = 3 - factor
  }
  return sum
}

export function luhnModNCheckChar(data: string, table: CodePointTable): string {
  const sum = data.length === 0 ? -1 : luhnModNSum(data, data.length, table, true)
  if (sum < 0) throw badInput('Luhn mod N', data)
  const n = table.alphabet.length
  return table.alphabet.charAt((n - (sum % n)) % n)
}

export function isValidLuhnModN(whole: string, table: CodePointTable): boolean {
  if (whole.length < 2) return false
  const sum = luhnModNSum(whole, whole.length, table, false)
  return sum >= 0 && sum % table.alphabet.length === 0
}
