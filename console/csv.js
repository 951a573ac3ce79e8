// Admin › Contacts › Import a roster: the server reads the file (any of , ; tab, header synonyms)
// and says row by row what importing would do; rows with errors can be fixed here or left out, and
// only the rows the server accepts are imported (an upsert: the same file twice changes nothing).
import { useState } from 'preact/hooks'
import { post, ApiError, apiUrl } from './api.js'
import { html, Alert, refusal } from './ui.js'
import { useRun } from './admin-kit.js'

const EDITABLE = [
  ['name', 'Name'],
  ['email', 'Email'],
  ['personalId', 'Id'],
]
const OUTCOME = {
  created: 'New contact',
  updated: 'Update',
  deactivated: 'Deactivate (left)',
  unchanged: 'Unchanged (no change)',
}

function describe(result) {
  if (!result) return 'Not checked'
  if (result.errors.length) return result.errors.map((e) => `${e.field}: ${e.message}`).join('; ')
  const label = result.done
    ? { created: 'Created', updated: 'Updated', deactivated: 'Deactivated', unchanged: 'Unchanged' }[result.outcome]
    : OUTCOME[result.outcome]
  return result.changes?.length ? `${label}: ${result.changes.join(', ')}` : label
}

export function RosterImport({ onImported }) {
  const [rows, setRows] = useState([])
  const [warnings, setWarnings] = useState([])
  const [notice, setNotice] = useState(null)
  const { error, busy, run } = useRun()
  const apply = (list, report, done = false) => list.map((r, i) => ({ ...r, result: { ...report.rows[i], done } }))

  const read = (e) =>
    run(async () => {
      const file = e.target.files?.[0]
      if (!file) return
      setNotice(null)
      // A spreadsheet goes as its bytes (base64): the server reads its first worksheet.
      const res = /\.xlsx$/i.test(file.name)
        ? await post('/api/v1/contacts/import/xlsx', { xlsx: await base64Of(file) })
        : await post('/api/v1/contacts/import/csv', { csv: await file.text() })
      setWarnings(res.warnings)
      setRows(
        apply(
          res.rows.map((r) => ({ line: r.line, row: r.row })),
          res.report,
        ),
      )
    })
  const kept = rows.filter((r) => !r.left)
  const check = () =>
    run(async () => {
      const report = await post('/api/v1/contacts/import', { rows: kept.map((r) => r.row), dryRun: true })
      let k = 0
      setRows(rows.map((r) => (r.left ? r : { ...r, result: { ...report.rows[k++], done: false } })))
    })
  const ready = kept.filter((r) => r.result && r.result.outcome !== 'invalid' && !r.result.done)
  const runImport = () =>
    run(async () => {
      const report = await post('/api/v1/contacts/import', { rows: ready.map((r) => r.row) })
      let k = 0
      setRows(rows.map((r) => (ready.includes(r) ? { ...r, result: { ...report.rows[k++], done: true } } : r)))
      setNotice(
        `Imported: ${report.created} created, ${report.updated} updated, ${report.deactivated ? `${report.deactivated} deactivated, ` : ''}${report.unchanged} unchanged.`,
      )
      await onImported()
    })
  const edit = (i, field, value) =>
    setRows(rows.map((r, j) => (j === i ? { ...r, row: { ...r.row, [field]: value }, result: null } : r)))
  const leaveOut = (i) => setRows(rows.map((r, j) => (j === i ? { ...r, left: true } : r)))
  const bad = kept.filter((r) => r.result?.outcome === 'invalid').length
  const unchecked = kept.some((r) => !r.result)

  return html`<section class="card" aria-labelledby="roster-title">
    <h2 id="roster-title">Import a roster (CSV or Excel)</h2>
    <p class="hint">
      Comma, semicolon or tab separated, with a header row: name (or first and last name), email, company, phone,
      personal id (student or employee number), type, language, external id, unit, status. A row updates the contact
      with its external id, id or email; a status of inactive (or left) deactivates it; contacts the file leaves out are
      not touched. Importing the same file again changes nothing.
      <a href=${apiUrl('/api/v1/contacts/export')} download="contacts.csv">Export all contacts (CSV)</a>
    </p>
    <div class="field">
      <label for="roster-file">Roster file</label>
      <input
        id="roster-file"
        type="file"
        accept=".csv,.tsv,.txt,.xlsx,text/csv,application/vnd.openxmlformats-officedocument.spreadsheetml.sheet"
        onChange=${read}
        disabled=${busy}
      />
    </div>
    <${Alert} messages=${error ? [error instanceof ApiError ? refusal(error) : error.message] : []} />
    <${Alert} kind="info" messages=${[...warnings, ...(notice ? [notice] : [])]} />
    ${
      rows.length > 0 &&
      html`<div class="table-wrap" tabindex="0" role="region" aria-label="Roster rows">
          <table aria-label="Roster preview">
            <thead>
              <tr>
                <th scope="col">Row</th>
                ${EDITABLE.map(([, label]) => html`<th scope="col">${label}</th>`)}
                <th scope="col">Result</th>
              </tr>
            </thead>
            <tbody>
              ${rows.map((r, i) =>
                r.left
                  ? null
                  : html`<tr class=${r.result?.outcome === 'invalid' ? 'bad' : ''}>
                      <td>${r.line}</td>
                      ${EDITABLE.map(([f, label]) =>
                        r.result?.outcome === 'invalid' || !r.result
                          ? html`<td>
                              <input
                                aria-label=${`${label}, row ${r.line}`}
                                value=${r.row[f] ?? ''}
                                onInput=${(e) => edit(i, f, e.target.value)}
                              />
                            </td>`
                          : html`<td>${r.row[f] ?? ''}</td>`,
                      )}
                      <td>
                        ${describe(r.result)}
                        ${
                          r.result?.outcome === 'invalid' &&
                          html` <button type="button" class="link" onClick=${() => leaveOut(i)}>
                            Leave out row ${r.line}
                          </button>`
                        }
                      </td>
                    </tr>`,
              )}
            </tbody>
          </table>
        </div>
        <p role="status">
          ${ready.length} ready${bad ? `, ${bad} with errors (fix them above or leave them out)` : ''}
        </p>
        <button type="button" onClick=${check} disabled=${busy}>Check again</button>
        <button type="button" onClick=${runImport} disabled=${busy || ready.length === 0 || unchecked}>
          Import ${ready.length} row${ready.length === 1 ? '' : 's'}
        </button>`
    }
  </section>`
}

/** A file's bytes as base64, in slices (String.fromCharCode takes a bounded number of arguments). */
async function base64Of(file) {
  const bytes = new Uint8Array(await file.arrayBuffer())
  let binary = ''
  for (let i = 0; i < bytes.length; i += 0x8000) binary += String.fromCharCode(...bytes.subarray(i, i + 0x8000))
  return globalThis.btoa(binary)
}
