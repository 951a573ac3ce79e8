import type ExcelJS from 'exceljs'
import { rosterOfRecords, type ParsedRoster } from './roster.js'

/** A cell as its text: dates as YYYY-MM-DD, formulas as their result, rich text as its plain text. */
function cellText(cell: ExcelJS.Cell): string {
  const v = cell.value
  if (v instanceof Date) return v.toISOString().slice(0, 10)
  if (v && typeof v === 'object' && 'result' in v) {
    const r = v.result
    if (r instanceof Date) return r.toISOString().slice(0, 10)
    return typeof r === 'string' || typeof r === 'number' || typeof r === 'boolean' ? String(r) : ''
  }
  return cell.text.trim()
}

/** How many bytes a roster workbook may unpack to: a zip bomb stops before exceljs loads it. */
const MAX_XLSX_UNCOMPRESSED = 64 * 1024 * 1024

/**
 * The bytes a zip unpacks to, from its central directory (APPNOTE 4.3.12, 4.3.16), without
 * unpacking anything; Infinity for a ZIP64 archive (a roster never needs one).
 */
function uncompressedSize(zip: Buffer): number {
  let end = -1
  for (let i = zip.length - 22; i >= Math.max(0, zip.length - 22 - 0xffff); i--)
    if (zip.readUInt32LE(i) === 0x06054b50) {
      end = i
      break
    }
  if (end < 0) throw new Error('not a zip archive')
  const entries = zip.readUInt16LE(end + 10)
  let at = zip.readUInt32LE(end + 16)
  if (entries === 0xffff || at === 0xffffffff) return Infinity
  let total = 0
  for (let n = 0; n < entries; n++) {
    if (at + 46 > zip.length || zip.readUInt32LE(at) !== 0x02014b50) throw new Error('a damaged zip archive')
    const size = zip.readUInt32LE(at + 24)
    if (size === 0xffffffff) return Infinity
    total += size
    at += 46 + zip.readUInt16LE(at + 28) + zip.readUInt16LE(at + 30) + zip.readUInt16LE(at + 32)
  }
  return total
}

/**
 * The first worksheet of an XLSX workbook as a roster (exceljs): its first non-empty row is the
 * header, each later non-empty row a contact, read no wider than the header; a row's `line` is its
 * spreadsheet row number. Throws on bytes that are not a workbook, one that unpacks to more than
 * MAX_XLSX_UNCOMPRESSED bytes, or a sheet of more than `maxRows` contacts.
 */
export async function parseRosterXlsx(bytes: Buffer, maxRows: number): Promise<ParsedRoster> {
  if (uncompressedSize(bytes) > MAX_XLSX_UNCOMPRESSED)
    throw new Error(`the workbook unpacks to more than ${MAX_XLSX_UNCOMPRESSED / 1024 / 1024} MB`)
  // Loaded on the first Excel import (a few hundred modules): nothing else needs it.
  const { default: Excel } = await import('exceljs')
  const workbook = new Excel.Workbook()
  await workbook.xlsx.load(bytes as unknown as ArrayBuffer)
  const sheet = workbook.worksheets[0]
  if (sheet && sheet.actualRowCount > maxRows + 1)
    throw new Error(`the sheet has more than ${maxRows} rows besides its header`)
  const records: Array<{ record: string[]; info: { lines: number } }> = []
  let width = Infinity
  sheet?.eachRow({ includeEmpty: false }, (row, rowNumber) => {
    const record: string[] = []
    for (let i = 1; i <= Math.min(row.cellCount, width); i++) record.push(cellText(row.getCell(i)))
    if (record.some((c) => c !== '')) {
      if (records.length === 0) width = record.length
      records.push({ record, info: { lines: rowNumber } })
    }
  })
  return rosterOfRecords(records, '')
}
