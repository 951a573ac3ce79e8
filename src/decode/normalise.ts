/**
 * What a scanner hands over, made uniform: the AIM symbology identifier (ISO/IEC 15424) is taken
 * off and remembered, the visible stand-ins some scanner utilities and documents use for control
 * characters become the characters, and surrounding whitespace and line ends go. Control
 * characters inside the data stay: they are structure (GS, RS, EOT).
 */

export interface NormalisedScan {
  text: string
  /** e.g. "]C1"; undefined when the scanner sent none. */
  aim?: string
  /** The AIM modifier says GS1 (FNC1 in first position), or the data starts with a GS for FNC1. */
  gs1: boolean
}

const AIM = /^\][A-Za-z][0-9A-Za-z]/

/** GS1-128 ]C1, GS1 DataBar ]e0, GS1 DataMatrix ]d2, GS1 QR ]Q3, GS1 DotCode ]J1, GS1 Aztec ]z1. */
const GS1_AIMS: ReadonlySet<string> = new Set([']C1', ']e0', ']d2', ']Q3', ']J1', ']z1'])

const STAND_INS = /<(?:GS|RS|EOT|FNC1)>|\{(?:GS|RS|EOT|FNC1)\}|[\u2404\u241d\u241e]/gi
const HAS_STAND_IN = /[<{\u2404\u241d\u241e]/

function controlFor(standIn: string): string {
  const t = standIn.toUpperCase()
  if (t === '\u2404' || t.includes('EOT')) return '\u0004'
  if (t === '\u241e' || t.includes('RS')) return '\u001e'
  return '\u001d'
}

/** Scanners add CR/LF/TAB suffixes; NUL and DEL are never data. */
const OUTER = /^[\s\u0000\u007f]+|[\s\u0000\u007f]+$/g

export function normaliseScan(raw: string): NormalisedScan {
  let text = raw.replace(OUTER, '')
  let aim: string | undefined
  if (AIM.test(text)) {
    aim = text.slice(0, 3)
    text = text.slice(3).replace(OUTER, '')
  }
  if (HAS_STAND_IN.test(text)) text = text.replace(STAND_INS, controlFor)
  let gs1 = aim !== undefined && GS1_AIMS.has(aim)
  if (text.charCodeAt(0) === 0x1d) {
    gs1 = true
    text = text.replace(/^\u001d+/, '')
  }
  return aim === undefined ? { text, gs1 } : { text, aim, gs1 }
}
