import { Buffer } from 'node:buffer'
import { setField, type Draft } from '../draft.js'
import { parseElementString } from '../gs1/element-string.js'
import { applyGs1Elements } from '../gs1/interpret.js'
import type { CarrierCode } from '../types.js'
import { ENVELOPE_HEADER, GS, parseEnvelope, type Segment } from './envelope.js'
import { applyTransportData, splitHeader } from './format01.js'
import { applyDataIdentifiers } from './format06.js'

/** Bytes as the scanner delivered them (one per character), for JSON. */
function toBase64(data: string): string {
  const bytes = /[^\u0000-\u00ff]/.test(data) ? Buffer.from(data, 'utf8') : Buffer.from(data, 'latin1')
  return bytes.toString('base64')
}

/**
 * Text before "[)>": some MaxiCode readers put the primary message there (postal code GS country
 * GS class GS) when the secondary message does not start with "[)>" RS "01" GS.
 */
function primaryBefore(text: string, start: number): string[] | undefined {
  if (start === 0) return undefined
  const parts = text
    .slice(0, start)
    .split(GS)
    .filter((p) => p.trim() !== '')
  return parts.length === 3 && /^\d{3}$/.test(parts[1] ?? '') && /^\d{3}$/.test(parts[2] ?? '') ? parts : undefined
}

/** Decodes the ISO/IEC 15434 message starting at `start` into the draft. */
export function decodeEnvelope(draft: Draft, text: string, start: number): void {
  const envelope = parseEnvelope(text, start)
  const primary = primaryBefore(text, start)
  const formats: string[] = []
  let header: string | undefined
  let namedCarrier: CarrierCode | undefined
  for (const segment of envelope.segments) {
    formats.push(segment.format)
    const h = applySegment(draft, segment, primary)
    header ??= h?.header
    namedCarrier ??= h?.carrier
  }
  if (envelope.trailing !== undefined) setField(draft, 'trailing', envelope.trailing)
  draft.envelope = header === undefined ? { formats } : { formats, header }
  // FedEx puts the recipient's name in the format 06 element 11Z.
  const name = draft.fields['11Z']
  if (namedCarrier === 'FEDEX' && name !== undefined) draft.receiver.name ??= name
}

/** Decodes a MaxiCode structured message that came without any envelope (primary GS … GS …). */
export function decodeBareTransport(draft: Draft, text: string): void {
  const elements = text.replace(/[\u0004\u001e]+$/, '').split(GS)
  draft.envelope = { formats: ['01'] }
  applyTransportData(draft, elements)
}

function applySegment(
  draft: Draft,
  segment: Segment,
  primary: string[] | undefined,
): { header?: string; carrier?: CarrierCode } | undefined {
  switch (segment.format) {
    case '01': {
      const { header, data } = splitHeader(segment.elements)
      const carrier = applyTransportData(draft, data, primary)
      const out: { header?: string; carrier?: CarrierCode } = {}
      if (header !== undefined) out.header = header
      if (carrier !== undefined) out.carrier = carrier
      return out
    }
    case '05':
      for (const element of segment.elements) {
        const parsed = parseElementString(element)
        if (parsed !== undefined) applyGs1Elements(draft, parsed)
        else setField(draft, 'unparsed', element)
      }
      return undefined
    case '06':
      applyDataIdentifiers(draft, segment.elements)
      return undefined
    case '07':
      setField(draft, 'format07Base64', toBase64(segment.opaque ?? ''))
      return undefined
    case '09': {
      const b = segment.binary
      if (b === undefined) break
      setField(draft, 'binaryFileType', b.fileType)
      setField(draft, 'binaryCompression', b.compression)
      setField(draft, 'binaryByteCount', b.byteCount)
      setField(draft, 'binaryBase64', toBase64(b.data))
      return undefined
    }
  }
  setField(draft, `format${segment.format}`, segment.elements.join(' '))
  return undefined
}

export function findEnvelope(text: string): number {
  return text.indexOf(ENVELOPE_HEADER)
}
