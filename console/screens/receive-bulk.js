// Receive in bulk: the scanned parcels, each with its own "Recipient" (a 2D label's match, or one
// picked with type-ahead), saved together into the one location chosen above.
import { get } from '../api.js'
import { html } from '../ui.js'
import { Combobox, searchContacts } from '../combobox.js'

export function BulkList({ batch, setBatch, busy, onSaveAll, backToScan }) {
  const setReceiver = (key, receiver) =>
    setBatch((rows) => rows.map((r) => (r.key === key ? { ...r, receiver, error: undefined } : r)))
  return html`<section class="card bulk" aria-labelledby="bulk-title">
    <h2 id="bulk-title">Scanned (${batch.length})</h2>
    <table>
      <thead>
        <tr>
          <th scope="col">Tracking number</th>
          <th scope="col">Carrier</th>
          <th scope="col">Recipient</th>
          <th scope="col">Note</th>
          <th scope="col"><span class="sr">Remove</span></th>
        </tr>
      </thead>
      <tbody>
        ${batch.map(
          (b) =>
            html`<tr key=${b.key}>
              <td>${b.trackingNumber}</td>
              <td>${b.carrier?.name ?? ''}</td>
              <td>
                <${Combobox}
                  label=${`Recipient for ${b.trackingNumber}`}
                  id=${`${b.key}-recipient`}
                  className="compact"
                  value=${b.receiver}
                  search=${(q) => searchContacts(get, q)}
                  onPick=${(o) => setReceiver(b.key, o)}
                  onEnterWithoutList=${backToScan}
                />
              </td>
              <td>${b.error ?? (b.held ? 'Already held' : '')}</td>
              <td>
                <button
                  type="button"
                  class="link"
                  onClick=${() => setBatch((rows) => rows.filter((x) => x.key !== b.key))}
                  aria-label=${`Remove ${b.trackingNumber}`}
                >
                  Remove
                </button>
              </td>
            </tr>`,
        )}
      </tbody>
    </table>
    <button type="button" disabled=${busy || batch.length === 0} onClick=${onSaveAll}>Save all</button>
  </section>`
}
