// A contact's holds (issue 30.2): vacation or leave from a day through a day. While one is in
// force the reminders of their waiting parcels pause; the desk shows "on hold until …".
import { useEffect, useState } from 'preact/hooks'
import { get, post, del, ApiError } from '../api.js'
import { html, Field, Alert, actionsOf } from '../ui.js'

const today = () => new Date().toISOString().slice(0, 10)

export function ContactHolds({ contact }) {
  const base = `/api/v1/contacts/${encodeURIComponent(contact.contactId)}/holds`
  const [holds, setHolds] = useState(null)
  const [form, setForm] = useState({ startDate: today(), endDate: '', reason: '' })
  const [error, setError] = useState(null)
  const [notice, setNotice] = useState(null)
  const load = () => get(base).then(setHolds, setError)
  useEffect(() => void load(), [base])
  const run = actionsOf({ setError, setNotice, load })
  const add = run('Hold saved.', async () => {
    await post(base, { ...form, reason: form.reason.trim() })
    setForm({ startDate: today(), endDate: '', reason: '' })
  })
  const err = error instanceof ApiError ? error : null
  const bind = (name) => ({ value: form[name], onInput: (e) => setForm({ ...form, [name]: e.target.value }) })
  return html`<section class="card" aria-labelledby="holds-title">
    <h2 id="holds-title">Holds of ${contact.name}</h2>
    <div aria-live="polite"><${Alert} kind="info" messages=${notice ? [notice] : []} /></div>
    <${Alert} messages=${error ? (err ? err.unclaimed(['startDate', 'endDate', 'reason']) : [error.message]) : []} />
    ${holds?.onHoldUntil && html`<p data-testid="contact-on-hold"><strong>On hold until ${holds.onHoldUntil}</strong>: reminders are paused.</p>`}
    <ul>
      ${(holds?.holds ?? []).map(
        (h) =>
          html`<li key=${h.holdId}>
            ${h.startDate} – ${h.endDate}: ${h.reason}${h.inForce ? ' (in force)' : ''}
            <button
              type="button"
              class="secondary"
              onClick=${run('Hold lifted.', () => del(`${base}/${encodeURIComponent(h.holdId)}`))}
            >
              Lift
            </button>
          </li>`,
      )}
    </ul>
    <form novalidate onSubmit=${add} aria-label="New hold">
      <${Field} label="From" id="hold-start" errors=${err?.forField('startDate') ?? []}>${(a) => html`<input ...${a} type="date" ...${bind('startDate')} />`}</${Field}>
      <${Field} label="Until (included)" id="hold-end" errors=${err?.forField('endDate') ?? []}>${(a) => html`<input ...${a} type="date" ...${bind('endDate')} />`}</${Field}>
      <${Field} label="Reason" id="hold-reason" errors=${err?.forField('reason') ?? []}>${(a) => html`<input ...${a} ...${bind('reason')} />`}</${Field}>
      <button type="submit">Put on hold</button>
    </form>
  </section>`
}
