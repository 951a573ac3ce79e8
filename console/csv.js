// The roster import's CSV reading (RFC 4180: quoted fields, doubled quotes, CRLF) and its per-row checks.
import { CONTACT_TYPES } from './vocabulary.js'

export function parseCsv(text) {
  const rows = []
  let row = []
  let cell = ''
  let quoted = false
  for (let i = 0; i < text.length; i++) {
    const ch = text[i]
    if (quoted) {
      if (ch === '"' && text[i + 1] === '"') {
        cell += '"'
        i++
      } else if (ch === '"') quoted = false
      else cell += ch
    } else if (ch === '"') quoted = true
    else if (ch === ',') {
      row.push(cell)
      cell = ''
    } else if (ch === '\n' || ch === '\r') {
      if (ch === '\r' && text[i + 1] === '\n') i++
      row.push(cell)
      rows.push(row)
      row = []
      cell = ''
    } else cell += ch
  }
  if (cell !== '' || row.length > 0) {
    row.push(cell)
    rows.push(row)
  }
  return rows.filter((r) => r.some((c) => c.trim() !== ''))
}

const COLUMNS = ['name', 'email', 'company', 'phone', 'personalId', 'contactType']

/** Header + rows → each row's contact and what is wrong with it before anything is sent. */
export function rosterRows(rows) {
  if (rows.length === 0) return []
  const header = rows[0].map((h) => h.trim())
  const unknown = header.filter((h) => !COLUMNS.includes(h))
  return rows.slice(1).map((cells, i) => {
    const contact = { contactType: 'RECEIVER' }
    header.forEach((h, j) => {
      const v = (cells[j] ?? '').trim()
      if (v && COLUMNS.includes(h)) contact[h] = h === 'contactType' ? v.toUpperCase() : v
    })
    const errors = []
    if (unknown.length) errors.push(`unknown column ${unknown.join(', ')}`)
    if (!contact.name) errors.push('name: required')
    if (!CONTACT_TYPES.includes(contact.contactType)) errors.push(`contactType: one of ${CONTACT_TYPES.join(', ')}`)
    if (contact.email && !/^[^@\s]+@[^@\s]+$/.test(contact.email)) errors.push('email: not an email address')
    return { line: i + 2, contact, errors }
  })
}
