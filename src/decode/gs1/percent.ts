/**
 * AIs whose data is percent-encoded ("pcenc" in the GS1 Barcode Syntax Dictionary): the ship-to
 * (4300–4306) and return-to (4310–4316) names and address lines, and the service description
 * (4320). CSET 82 has no room for "é" or "ß", so such text travels as the UTF-8 bytes "%C3%A9".
 */
export const PERCENT_ENCODED_AIS: ReadonlySet<string> = new Set([
  '4300',
  '4301',
  '4302',
  '4303',
  '4304',
  '4305',
  '4306',
  '4310',
  '4311',
  '4312',
  '4313',
  '4314',
  '4315',
  '4316',
  '4320',
])

/** Every "%" followed by two hex digits (RFC 3986 §2.1); anything else is not percent-encoding. */
const WELL_FORMED = /^(?:[^%]|%[0-9A-Fa-f]{2})*$/
const ENCODED_RUN = /(?:%[0-9A-Fa-f]{2})+/g

const utf8 = new TextDecoder('utf-8', { fatal: true })

/**
 * The text a pcenc value stands for: each run of "%XX" is a UTF-8 byte sequence. A value with a
 * stray "%" or bytes that are not UTF-8 was not encoded as the standard says: it is kept as read
 * rather than half decoded.
 */
export function decodePercentEncoding(value: string): string {
  if (!value.includes('%') || !WELL_FORMED.test(value)) return value
  try {
    return value.replace(ENCODED_RUN, (run) => {
      const bytes = new Uint8Array(run.length / 3)
      for (let i = 0; i < bytes.length; i++) bytes[i] = Number.parseInt(run.slice(i * 3 + 1, i * 3 + 3), 16)
      return utf8.decode(bytes)
    })
  } catch {
    return value
  }
}
