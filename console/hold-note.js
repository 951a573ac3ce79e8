// "On hold until …" at the desk (issue 30.2): shown when receiving or handing over for a recipient
// whose hold is in force, so the clerk knows reminders are paused and the recipient is away.
import { useEffect, useState } from 'preact/hooks'
import { get } from './api.js'
import { html } from './ui.js'

export function HoldNote({ contactId }) {
  const [hold, setHold] = useState(null)
  useEffect(() => {
    setHold(null)
    if (!contactId) return
    let live = true
    get(`/api/v1/contacts/${encodeURIComponent(contactId)}/holds`)
      .then((r) => {
        const current = r.onHoldUntil && r.holds.find((h) => h.inForce)
        if (live) setHold(current ? { until: r.onHoldUntil, reason: current.reason } : null)
      })
      .catch(() => {})
    return () => {
      live = false
    }
  }, [contactId])
  if (!hold) return null
  return html`<p class="hold-note" role="status" data-testid="hold-note">
    <strong>On hold until ${hold.until}</strong> (${hold.reason}): reminders are paused.
  </p>`
}
