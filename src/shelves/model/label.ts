import type { PDFFont } from 'pdf-lib'

/**
 * Label stock the service prints for: a 4 × 6 in shipping label (portrait) and a 2.25 × 1.25 in
 * address label (landscape), the two sizes desktop thermal printers (Zebra, DYMO, Rollo) take.
 * Vocabulary of the API: never renamed.
 */
export const LABEL_SIZES = ['4x6', '2.25x1.25'] as const
export type LabelSize = (typeof LABEL_SIZES)[number]
export const LABEL_FORMATS = ['pdf', 'zpl'] as const
export type LabelFormat = (typeof LABEL_FORMATS)[number]

export interface ShelfLabel {
  code: string
  name: string
  /** Where the shelf is: its site's names root → parent ("Mailroom 1 › Building 1"). */
  place: string
}

interface Stock {
  /** Page size in PDF points (1/72 in). */
  width: number
  height: number
  margin: number
  nameSize: number
  placeSize: number
  barHeight: number
  /** ZPL: page width and length in dots at 203 dpi, module width in dots, bar height in dots. */
  zpl: { width: number; length: number; module: number; bar: number; nameFont: number; placeFont: number }
}

const STOCK: Record<LabelSize, Stock> = {
  '4x6': {
    width: 288,
    height: 432,
    margin: 18,
    nameSize: 40,
    placeSize: 14,
    barHeight: 120,
    zpl: { width: 812, length: 1218, module: 4, bar: 300, nameFont: 90, placeFont: 36 },
  },
  '2.25x1.25': {
    width: 162,
    height: 90,
    margin: 6,
    nameSize: 14,
    placeSize: 6,
    barHeight: 34,
    zpl: { width: 457, length: 254, module: 2, bar: 90, nameFont: 36, placeFont: 20 },
  },
}

/**
 * The Code 128 of a code as a PNG, one module 3 pixels wide, no human-readable line (drawn by us),
 * white with its quiet zones (ten modules each side, ISO/IEC 15417) inside the image: a scaled-down
 * label keeps them.
 */
export async function barcodePng(code: string): Promise<Buffer> {
  // bwip-js (2 MB of JavaScript) is compiled on the first label drawn, not at every start.
  const { default: bwipjs } = await import('bwip-js')
  return bwipjs.toBuffer({
    bcid: 'code128',
    text: code,
    scale: 3,
    height: 10,
    includetext: false,
    paddingwidth: 10,
    paddingheight: 2,
    backgroundcolor: 'FFFFFF',
  })
}

/** The text with what the standard font cannot encode replaced (a label in any script still prints). */
function printable(font: PDFFont, text: string): string {
  return [...text]
    .map((ch) => {
      try {
        font.encodeText(ch)
        return ch
      } catch {
        return '?'
      }
    })
    .join('')
}

/** The largest size up to `max` at which the text fits `width`, then cut with an ellipsis at size 5. */
function fitted(font: PDFFont, text: string, max: number, width: number): { text: string; size: number } {
  for (let size = max; size >= 5; size -= 1) if (font.widthOfTextAtSize(text, size) <= width) return { text, size }
  let cut = text
  while (cut.length > 1 && font.widthOfTextAtSize(`${cut}...`, 5) > width) cut = cut.slice(0, -1)
  return { text: `${cut}...`, size: 5 }
}

/** One page per shelf: its name large, where it is, the Code 128 of its code, and the code in text. */
export async function labelsPdf(labels: ShelfLabel[], size: LabelSize): Promise<Buffer> {
  const s = STOCK[size]
  // Loaded on the first PDF asked for (about 800 KiB of modules), as bwip-js above.
  const { PDFDocument, StandardFonts } = await import('pdf-lib')
  const doc = await PDFDocument.create()
  doc.setTitle('Shelf labels')
  doc.setCreator('mailroom')
  const bold = await doc.embedFont(StandardFonts.HelveticaBold)
  const regular = await doc.embedFont(StandardFonts.Helvetica)
  const inner = s.width - 2 * s.margin
  for (const label of labels) {
    const page = doc.addPage([s.width, s.height])
    let y = s.height - s.margin
    const name = fitted(bold, printable(bold, label.name), s.nameSize, inner)
    y -= name.size
    page.drawText(name.text, { x: s.margin, y, size: name.size, font: bold })
    if (label.place) {
      const place = fitted(regular, printable(regular, label.place), s.placeSize, inner)
      y -= place.size + 2
      page.drawText(place.text, { x: s.margin, y, size: place.size, font: regular })
    }
    const png = await doc.embedPng(await barcodePng(label.code))
    // As wide as the label allows, the height the stock sets: the bars stay in proportion across.
    const barWidth = Math.min(inner, png.width)
    const codeSize = Math.max(6, s.placeSize)
    const barY = s.margin + codeSize + 2
    page.drawImage(png, {
      x: (s.width - barWidth) / 2,
      y: barY,
      width: barWidth,
      height: Math.min(s.barHeight, y - barY - 4),
    })
    const codeWidth = regular.widthOfTextAtSize(label.code, codeSize)
    page.drawText(label.code, { x: (s.width - codeWidth) / 2, y: s.margin, size: codeSize, font: regular })
  }
  return Buffer.from(await doc.save())
}

/** ZPL field data: ^FH lets `_` start a hex escape, so the command characters print as text. */
const zplText = (text: string) =>
  text.replace(/[_^~\\]/g, (ch) => `_${ch.charCodeAt(0).toString(16).toUpperCase().padStart(2, '0')}`)

/** The same labels as ZPL II for a 203 dpi thermal printer: one ^XA…^XZ format per shelf, UTF-8 text. */
export function labelsZpl(labels: ShelfLabel[], size: LabelSize): string {
  const z = STOCK[size].zpl
  const m = Math.round(z.width * 0.04)
  return labels
    .map((label) =>
      [
        '^XA',
        '^CI28',
        `^PW${z.width}`,
        `^LL${z.length}`,
        `^FO${m},${m}^A0N,${z.nameFont},${z.nameFont}^FB${z.width - 2 * m},1,0,L^FH^FD${zplText(label.name)}^FS`,
        label.place
          ? `^FO${m},${m + z.nameFont + 4}^A0N,${z.placeFont},${z.placeFont}^FB${z.width - 2 * m},1,0,L^FH^FD${zplText(label.place)}^FS`
          : '',
        `^FO${m},${z.length - z.bar - m - z.placeFont - 8}^BY${z.module}^BCN,${z.bar},Y,N,N^FD${label.code}^FS`,
        '^XZ',
      ]
        .filter(Boolean)
        .join('\n'),
    )
    .join('\n')
}
