// Receive in bulk: the scanned parcels, each with its own "Recipient" (a 2D label's match, or one
// picked with type-ahead) and its carrier (the best reading, the others one key away), saved
// together into the one location chosen above, with one set of custom field values for the list
// (a bulk list is one kind of delivery; a parcel that differs is received on its own).
import { html, Link } from '../ui.js'
import { Combobox } from '../combobox.js'
import { enqueue } from '../outbox.js'
import { packageBody, withCarrier, INTERNAL, UNKNOWN_FORMAT } from '../receiving.js'
import { CarrierChoice } from './receive-item.js'
import { CustomFieldInputs } from './receive-fields.js'

export const mustChoose = (it) =>
  `${it.trackingNumber}: ${it.finished.text} Open it, or receive it again as a new arrival.`

/**
 * Puts the list in the outbox, all into `location` with one set of custom fields; answers the rows
 * that cannot go as they are (`left`) and the outbox entries written (`entries`, for the shelf).
 */
export async function enqueueBatch(owner, batch, location, customFields) {
  const left = []
  const entries = []
  for (const b of batch) {
    if (b.unknownFormat || (b.finished && !b.again)) {
      left.push({ ...b, error: b.unknownFormat ? UNKNOWN_FORMAT : mustChoose(b) })
      continue
    }
    const body = b.offline ? undefined : packageBody(b, b.receiver, location, customFields)
    const { raw, trackingNumber, receiver: recipient, internal = false } = b
    const again = Boolean(b.again)
    const seq = await enqueue(owner, { raw, trackingNumber, body, recipient, location, internal, again, customFields })
    entries.push({ seq, trackingNumber: trackingNumber ?? raw })
  }
  return { left, entries }
}

function note(b, onAgain) {
  if (b.finished && !b.again)
    return html`${b.error ?? b.finished.text}
      <span class="row-actions">
        <${Link} to=${`/packages/${b.finished.packageId}`}>Open it</${Link}>
        <button type="button" class="secondary" onClick=${() => onAgain(b)} aria-label=${`Receive ${b.trackingNumber} again as a new arrival`}>
          Receive again
        </button>
      </span>`
  if (b.error) return b.error
  if (b.held) return 'Already held'
  if (b.again) return `${b.finished.text} Saved as a new arrival by Save all.`
  if (b.offline) return 'Sent when the server answers'
  return ''
}

export function BulkList({ batch, setBatch, busy, onSaveAll, backToScan, search, onAgain, fields }) {
  const change = (key, f) => setBatch((rows) => rows.map((r) => (r.key === key ? { ...f(r), error: undefined } : r)))
  return html`<section class="card bulk" aria-labelledby="bulk-title">
    <h2 id="bulk-title">Scanned (${batch.length})</h2>
    <div class="table-wrap">
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
                <td class="tn">${b.trackingNumber}</td>
                <td>
                  ${
                    b.unknownFormat
                      ? html`<span>${UNKNOWN_FORMAT}</span>
                          <button
                            type="button"
                            class="secondary"
                            onClick=${() => change(b.key, (r) => withCarrier(r, INTERNAL.carrierId))}
                          >
                            Receive as internal item
                          </button>`
                      : html`<${CarrierChoice}
                          item=${b}
                          id=${`${b.key}-carrier`}
                          label=${`Carrier for ${b.trackingNumber}`}
                          onCarrier=${(id) => change(b.key, (r) => withCarrier(r, id))}
                        />`
                  }
                </td>
                <td>
                  <${Combobox}
                    label=${`Recipient for ${b.trackingNumber}`}
                    id=${`${b.key}-recipient`}
                    className="compact"
                    value=${b.receiver}
                    search=${search}
                    onPick=${(o) => change(b.key, (r) => ({ ...r, receiver: o }))}
                    onEnterWithoutList=${backToScan}
                  />
                </td>
                <td>${note(b, onAgain)}</td>
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
    </div>
    <${CustomFieldInputs}
      defs=${fields.defs}
      values=${fields.values}
      onChange=${fields.setValues}
      errors=${fields.errors}
      serverErrors=${fields.serverErrors}
      prefix="bulk-cf"
      legend="For every parcel of this list"
    />
    <button type="button" disabled=${busy || batch.length === 0} onClick=${onSaveAll}>Save all</button>
  </section>`
}
