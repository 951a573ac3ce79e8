/**
 * ISO/IEC 15434 message envelope: "[)>" RS, then format segments "nn" GS … RS, then EOT.
 * Read left to right, never split up front: format 09 carries counted binary bytes and UPS's
 * format 07 trailer is compressed data, and either may contain RS, GS or EOT. Missing trailers
 * (no final RS, no EOT) are tolerated; scanners and label printers drop them.
 */

export const RS = '\u001e'
export const GS = '\u001d'
export const EOT = '\u0004'
export const ENVELOPE_HEADER = '[)>'

export interface BinarySegment {
  fileType: string
  compression: string
  /** Byte count as declared. */
  byteCount: string
  /** The bytes, one per character, as read (fewer than declared when the scan was cut short). */
  data: string
}

export interface Segment {
  format: string
  /** GS-separated data elements (formats other than 07 and 09). */
  elements: string[]
  /** Format 07 content, and the bytes of format 09. */
  opaque?: string
  binary?: BinarySegment
}

export interface Envelope {
  segments: Segment[]
  /** Anything after the envelope that is not a trailer. */
  trailing?: string
}

/** Parses the envelope whose "[)>" starts at `start`. */
export function parseEnvelope(text: string, start: number): Envelope {
  const segments: Segment[] = []
  const n = text.length
  let pos = start + ENVELOPE_HEADER.length
  if (text[pos] === RS) pos++
  while (pos < n) {
    const c = text[pos]
    if (c === EOT) {
      pos++
      break
    }
    if (c === RS || c === GS || c === '\r' || c === '\n') {
      pos++
      continue
    }
    const format = text.slice(pos, pos + 2)
    if (!/^\d\d$/.test(format)) break
    pos += 2
    if (text[pos] === GS) pos++
    if (format === '09') {
      const read = readBinary(text, pos)
      if (read !== undefined) {
        segments.push({ format, elements: [], binary: read.segment })
        pos = read.end
        if (text[pos] === RS) pos++
        continue
      }
    }
    if (format === '07') {
      // No length is given, so the opaque data runs to the final RS (or EOT, or the end).
      const end = opaqueEnd(text, pos)
      segments.push({ format, elements: [], opaque: text.slice(pos, end) })
      pos = end
      continue
    }
    const end = segmentEnd(text, pos)
    segments.push({ format, elements: text.slice(pos, end).split(GS) })
    pos = end
    if (text[pos] === RS) pos++
  }
  const rest = text.slice(pos).replace(/^[\s\u0004\u001d\u001e]+|[\s\u0004\u001d\u001e]+$/g, '')
  return rest === '' ? { segments } : { segments, trailing: rest }
}

function segmentEnd(text: string, from: number): number {
  const rs = text.indexOf(RS, from)
  const eot = text.indexOf(EOT, from)
  if (rs < 0) return eot < 0 ? text.length : eot
  return eot < 0 ? rs : Math.min(rs, eot)
}

function opaqueEnd(text: string, from: number): number {
  let end = text.length
  if (text.endsWith(EOT)) end--
  if (end > from && text[end - 1] === RS) end--
  return Math.max(end, from)
}

/** "09" GS file type GS compression GS byte count GS bytes. */
function readBinary(text: string, from: number): { segment: BinarySegment; end: number } | undefined {
  const header: string[] = []
  let pos = from
  for (let i = 0; i < 3; i++) {
    const gs = text.indexOf(GS, pos)
    if (gs < 0) return undefined
    header.push(text.slice(pos, gs))
    pos = gs + 1
  }
  const [fileType = '', compression = '', byteCount = ''] = header
  if (!/^\d{1,9}$/.test(byteCount)) return undefined
  const end = Math.min(text.length, pos + Number(byteCount))
  return { segment: { fileType, compression, byteCount, data: text.slice(pos, end) }, end }
}
