import ExcelJS from 'exceljs'
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

/**
 * The first worksheet of an XLSX workbook as a roster (exceljs): its first non-empty row is the
 * header, each later non-empty row a contact; a row's `line` is its spreadsheet row number.
 * Throws on bytes that are not a workbook.
 */
export async function parseRosterXlsx(bytes: Buffer): Promise<ParsedRoster> {
  const workbook = new ExcelJS.Workbook()
  await workbook.xlsx.load(bytes as unknown as ArrayBuffer)
  const sheet = workbook.worksheets[0]
  const records: Array<{ record: string[]; info: { lines: number } }> = []
  sheet?.eachRow({ includeEmpty: false }, (row, rowNumber) => {
    const record: string[] = []
    for (let i = 1; i <= row.cellCount; i++) record.push(cellText(row.getCell(i)))
    if (record.some((c) => c !== '')) records.push({ record, info: { lines: rowNumber } })
  })
  return rosterOfRecords(records, '')
}
