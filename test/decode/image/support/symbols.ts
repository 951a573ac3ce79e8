import bwipjs from 'bwip-js'
import { rasterFromPng, type Raster } from './raster.js'

const GS = '\x1d'
const RS = '\x1e'
const EOT = '\x04'

/** One test symbol: how bwip-js draws it and the exact text the reader must return for it. */
export interface SymbolSpec {
  readonly name: string
  readonly bcid: string
  /** bwip-js input: GS1 element strings in (AI) form, or raw text with control characters. */
  readonly data: string
  readonly expected: {
    readonly symbology: string
    readonly text: string
    readonly isGS1: boolean
    readonly aimId: string
  }
  readonly options?: Readonly<Record<string, unknown>>
}

const UPS_TRACKING = '1Z999AA10123456784'
const ISO15434_UPS = `[)>${RS}01${GS}96152382802${GS}840${GS}001${GS}${UPS_TRACKING}${GS}UPSN${GS}06X610${GS}159${GS}1234567${GS}1/1${GS}${GS}Y${GS}634 ALPHA DR${GS}PITTSBURGH${GS}PA${RS}${EOT}`
// MaxiCode's secondary message holds about 84 characters, so UPS shortens the fields it carries.
const ISO15434_MAXICODE = `[)>${RS}01${GS}96152382802${GS}840${GS}001${GS}1Z00004951${GS}UPSN${GS}06X610${GS}159${GS}1234567${GS}1/1${GS}${GS}Y${GS}634 ALPHA DR${GS}PITTSBURGH${GS}PA${RS}${EOT}`
const ISO15434_FEDEX = `[)>${RS}06${GS}10ZGD007${GS}12Z6175551212${GS}31Z1001234567890123456789012345678${GS}14ZSUITE 100${GS}15Z12345678${GS}20Z${GS}26Z0123${RS}${EOT}`

export const SYMBOLS = {
  upsCode128: {
    name: 'UPS 1Z in Code 128',
    bcid: 'code128',
    data: UPS_TRACKING,
    expected: { symbology: 'Code128', text: UPS_TRACKING, isGS1: false, aimId: ']C0' },
  },
  uspsImpb: {
    name: 'USPS IMpb in GS1-128',
    bcid: 'gs1-128',
    data: '(420)10001(92)61299990000123456788',
    // FNC1 after the variable-length (420) field comes back as GS; the leading FNC1 is the ]C1 AIM id.
    expected: { symbology: 'Code128', text: `42010001${GS}9261299990000123456788`, isGS1: true, aimId: ']C1' },
  },
  upsDataMatrix: {
    name: 'ISO 15434 DataMatrix',
    bcid: 'datamatrix',
    data: ISO15434_UPS,
    expected: { symbology: 'DataMatrix', text: ISO15434_UPS, isGS1: false, aimId: ']d1' },
  },
  gs1DataMatrix: {
    name: 'GS1 DataMatrix',
    bcid: 'gs1datamatrix',
    data: '(01)09501101530003(21)ABC123(17)261231',
    expected: { symbology: 'DataMatrix', text: `010950110153000321ABC123${GS}17261231`, isGS1: true, aimId: ']d2' },
  },
  fedexPdf417: {
    name: 'ISO 15434 PDF417',
    bcid: 'pdf417',
    data: ISO15434_FEDEX,
    expected: { symbology: 'PDF417', text: ISO15434_FEDEX, isGS1: false, aimId: ']L2' },
    // Carriers print PDF417 with a high error-correction level; bwip-js's default is the minimum.
    options: { columns: 6, eclevel: 5 },
  },
  qrCode: {
    name: 'QR Code',
    bcid: 'qrcode',
    data: 'https://example.com/track?id=TBA123456789000',
    expected: { symbology: 'QRCode', text: 'https://example.com/track?id=TBA123456789000', isGS1: false, aimId: ']Q1' },
  },
  upsMaxiCode: {
    name: 'UPS MaxiCode',
    bcid: 'maxicode',
    data: ISO15434_MAXICODE,
    expected: { symbology: 'MaxiCode', text: ISO15434_MAXICODE, isGS1: false, aimId: ']U1' },
    options: { mode: 2 },
  },
  ean13: {
    name: 'EAN-13',
    bcid: 'ean13',
    data: '590123412345',
    expected: { symbology: 'EAN-13', text: '5901234123457', isGS1: false, aimId: ']E0' },
  },
  code39: {
    name: 'Code 39',
    bcid: 'code39',
    data: 'PKG-00042',
    expected: { symbology: 'Code39', text: 'PKG-00042', isGS1: false, aimId: ']A0' },
  },
  itf14: {
    name: 'ITF-14',
    bcid: 'itf14',
    data: '1540014128876',
    expected: { symbology: 'ITF', text: '15400141288763', isGS1: false, aimId: ']I1' },
  },
} satisfies Record<string, SymbolSpec>

/**
 * bwip-js `parse` reads ^NNN as a byte; a literal caret must be escaped the same way or it would
 * swallow the digits after it.
 */
function caretEscape(text: string): string {
  return text.replace(/[\x00-\x1f^]/g, (c) => `^${c.charCodeAt(0).toString().padStart(3, '0')}`)
}

/** Draws `spec` at `moduleSize` pixels per module on white, with no human-readable line. */
export async function renderSymbol(spec: SymbolSpec, moduleSize: number): Promise<Raster> {
  const isGS1 = spec.bcid.startsWith('gs1')
  const options = {
    bcid: spec.bcid,
    text: isGS1 ? spec.data : caretEscape(spec.data),
    parse: !isGS1,
    scale: moduleSize,
    backgroundcolor: 'FFFFFF',
    paddingwidth: 10,
    paddingheight: 10,
    ...spec.options,
  }
  return rasterFromPng(await bwipjs.toBuffer(options))
}
