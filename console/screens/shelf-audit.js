// Audit a shelf (issue 30.1): scan its label, then every parcel on it, then Finish: the server
// compares with what the records say waits there and marks each found, missing or misplaced.
// A misplaced parcel can be filed on the shelf from here (it is where it was found).
import { useState } from 'preact/hooks'
import { get, post, ApiError } from '../api.js'
import { html, Alert } from '../ui.js'
import { isShelfCode, ScanField } from '../shelf-scan.js'

function Items({ title, items, testid, action }) {
  return html`<section class="card" aria-labelledby=${`${testid}-title`}>
    <h3 id=${`${testid}-title`}>${title} (${items.length})</h3>
    ${
      items.length > 0 &&
      html`<table data-testid=${testid}>
        <thead>
          <tr>
            <th scope="col">Tracking number</th>
            <th scope="col">Recipient</th>
            <th scope="col">Recorded at</th>
            ${action && html`<th scope="col"><span class="sr">Action</span></th>`}
          </tr>
        </thead>
        <tbody>
          ${items.map(
            (i) =>
              html`<tr>
                <td>${i.trackingNumber}</td>
                <td>${i.recipient ?? ''}</td>
                <td>${(i.recordedAt ?? '').replace(/\| /g, ' › ')}</td>
                ${action && html`<td>${action(i)}</td>`}
              </tr>`,
          )}
        </tbody>
      </table>`
    }
  </section>`
}

const summary = (r) =>
  `${r.found.length} found, ${r.missing.length} missing, ${r.misplaced.length} misplaced` +
  (r.unknown.length ? `, ${r.unknown.length} unknown.` : '.')

export function ShelfAudit() {
  const [shelf, setShelf] = useState(null)
  const [scans, setScans] = useState([])
  const [result, setResult] = useState(null)
  const [filed, setFiled] = useState(new Set())
  const [error, setError] = useState(null)

  const onScan = async (text) => {
    setError(null)
    try {
      if (isShelfCode(text)) {
        setShelf(await get(`/api/v1/shelves/codes/${encodeURIComponent(text)}`))
        setScans([])
        setResult(null)
        setFiled(new Set())
      } else if (!shelf) setError('Scan the shelf label first.')
      else setScans((s) => [...s, text])
    } catch (err) {
      setError(err instanceof ApiError && err.status === 404 ? `No shelf has the label ${text}.` : err.message)
    }
  }
  const finish = async () => {
    setError(null)
    try {
      setResult(await post(`/api/v1/shelves/${encodeURIComponent(shelf.inboundSiteId)}/audits`, { scans }))
    } catch (err) {
      setError(err.message)
    }
  }
  const fileHere = async (item) => {
    try {
      await post(`/api/v1/shelves/${encodeURIComponent(shelf.inboundSiteId)}/filings`, { scans: [item.packageId] })
      setFiled((f) => new Set([...f, item.packageId]))
    } catch (err) {
      setError(err.message)
    }
  }

  return html`<section aria-labelledby="audit-title">
    <h2 id="audit-title">Audit a shelf</h2>
    <${ScanField}
      id="audit-scan"
      label="Scan"
      onScan=${onScan}
      hint=${shelf ? `Scan every parcel on ${shelf.name}, then Finish.` : 'Scan the shelf label first.'}
    />
    <${Alert} messages=${error ? [error] : []} />
    <p role="status" aria-live="polite" data-testid="audit-state">
      ${shelf ? `Auditing ${shelf.name}: ${scans.length} scanned.` : 'No shelf chosen.'}
    </p>
    ${shelf && !result && html`<button type="button" onClick=${finish}>Finish audit</button>`}
    ${
      result &&
      html`<div class="audit-result">
        <p role="status" data-testid="audit-summary">${summary(result)}</p>
        <${Items} title="Missing" items=${result.missing} testid="audit-missing" />
        <${Items}
          title="Misplaced"
          items=${result.misplaced}
          testid="audit-misplaced"
          action=${(i) =>
            filed.has(i.packageId)
              ? html`<span>Filed here</span>`
              : html`<button type="button" class="secondary" onClick=${() => fileHere(i)}>
                  File on ${shelf.name}<span class="sr"> (${i.trackingNumber})</span>
                </button>`}
        />
        <${Items} title="Found" items=${result.found} testid="audit-found" />
        ${result.unknown.length > 0 && html`<p>Unknown scans: ${result.unknown.join(', ')}</p>`}
      </div>`
    }
  </section>`
}
