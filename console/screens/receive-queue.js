// Receive's outbox as the clerk sees it: "N waiting to send" while the server does not answer, and
// each refused row (not a carrier's number, already handed over, already held) to settle by hand.
import { html, Link } from '../ui.js'

const ACTION = {
  'unknown-format': ['Receive as internal item', { internal: true }],
  'handed-over': ['Receive again', { again: true }],
}

export function QueuePanel({ entries, onSettle, onDiscard, onSendNow }) {
  const waiting = entries.filter((e) => e.state === 'waiting')
  const conflicts = entries.filter((e) => e.state === 'conflict')
  if (entries.length === 0) return null
  return html`<section class="card queue" aria-labelledby="queue-title">
    <h2 id="queue-title">Not sent yet</h2>
    ${
      waiting.length > 0 &&
      html`<p class="waiting" data-testid="waiting-count">
        ${waiting.length} waiting to send
        <button type="button" class="secondary" onClick=${onSendNow}>Send now</button>
      </p>`
    }
    ${
      conflicts.length > 0 &&
      html`<ul class="conflicts">
        ${conflicts.map((e) => {
          const [label, changes] = ACTION[e.problem] ?? []
          return html`<li key=${e.seq} data-testid="conflict">
            <strong>${e.trackingNumber}</strong>${e.recipient?.label && ` for ${e.recipient.label}`}: ${e.message}
            ${
              label &&
              html`<button type="button" class="secondary" onClick=${() => onSettle(e, changes)}>${label}</button>`
            }
            <button
              type="button"
              class="secondary"
              onClick=${() => onDiscard(e)}
              aria-label=${`Discard ${e.trackingNumber}`}
            >
              Discard
            </button>
          </li>`
        })}
      </ul>`
    }
  </section>`
}

/** What the outbox sent and the server holds, newest first; each links to its package. */
export function SavedList({ saved }) {
  return html`<section aria-labelledby="saved-title" class="saved">
    <h2 id="saved-title">Saved</h2>
    <ul>
      ${saved.map(
        (s) =>
          html`<li key=${s.packageId}>Saved <${Link} to=${`/packages/${s.packageId}`}>${s.trackingNumber}</${Link}>${s.recipient && ` for ${s.recipient}`}</li>`,
      )}
    </ul>
  </section>`
}
