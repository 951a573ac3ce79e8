// "Add contact" inline on Receive: the recipient the clerk typed is not on file yet. Name, email,
// phone and unit (the contact's location); the new contact becomes the parcel's recipient.
import { useEffect, useRef, useState } from 'preact/hooks'
import { post, ApiError } from './api.js'
import { html, Field, Alert } from './ui.js'

const FIELDS = ['name', 'email', 'phone', 'location']

export function AddContact({ name, sites, onAdded, onCancel }) {
  const [form, setForm] = useState({ name, email: '', phone: '', unit: '' })
  const [error, setError] = useState(null)
  const [busy, setBusy] = useState(false)
  const first = useRef(null)
  useEffect(() => first.current?.focus(), [])
  const set = (k) => (e) => setForm({ ...form, [k]: e.target.value })
  const submit = async (e) => {
    e.preventDefault()
    e.stopPropagation()
    setBusy(true)
    setError(null)
    try {
      const c = await post('/api/v1/contacts', {
        contactType: 'RECEIVER',
        name: form.name.trim(),
        ...(form.email.trim() ? { email: form.email.trim() } : {}),
        ...(form.phone.trim() ? { phone: form.phone.trim() } : {}),
        ...(form.unit ? { location: { inboundSiteId: form.unit } } : {}),
      })
      onAdded({ id: c.contactId, label: c.name, detail: c.email ?? '' })
    } catch (err) {
      setError(err)
    } finally {
      setBusy(false)
    }
  }
  const err = error instanceof ApiError ? error : null
  // A fieldset inside the parcel's form, not a nested <form>: its own button sends it.
  return html`<fieldset class="add-contact card" aria-labelledby="add-contact-title">
    <legend id="add-contact-title">Add contact</legend>
    <${Alert} messages=${error ? (err ? err.unclaimed(FIELDS) : [error.message]) : []} />
    <${Field} label="Name" id="add-contact-name" errors=${err?.forField('name') ?? []}>
      ${(a) => html`<input ...${a} ref=${first} value=${form.name} onInput=${set('name')} required />`}
    </${Field}>
    <${Field} label="Email" id="add-contact-email" errors=${err?.forField('email') ?? []}>
      ${(a) => html`<input ...${a} type="email" value=${form.email} onInput=${set('email')} />`}
    </${Field}>
    <${Field} label="Phone" id="add-contact-phone" errors=${err?.forField('phone') ?? []}>
      ${(a) => html`<input ...${a} type="tel" value=${form.phone} onInput=${set('phone')} />`}
    </${Field}>
    <${Field} label="Unit" id="add-contact-unit" errors=${err?.forField('location') ?? []}>
      ${(a) =>
        html`<select ...${a} value=${form.unit} onChange=${set('unit')}>
          <option value="">None</option>
          ${sites.map((s) => html`<option value=${s.inboundSiteId}>${s.locationHierarchy.replace(/\| /g, ' › ')}</option>`)}
        </select>`}
    </${Field}>
    <div class="actions">
      <button type="button" disabled=${busy || !form.name.trim()} onClick=${submit}>Add and use</button>
      <button type="button" class="secondary" onClick=${onCancel}>Cancel</button>
    </div>
  </fieldset>`
}
