// Mark a parcel damaged (issue 25 item 5): the API's DAMAGED status, with a photo of the damage
// (images API → tempURL, attached to the DAMAGED activity as DAMAGE) and what the clerk saw.
import { useRef, useState } from 'preact/hooks'
import { post, put, ApiError } from '../api.js'
import { html, Field, Alert } from '../ui.js'
import { uploadImage } from '../data.js'

export function MarkDamaged({ pkg, onDone }) {
  const photoRef = useRef(null)
  const [note, setNote] = useState('')
  const [error, setError] = useState(null)
  const [busy, setBusy] = useState(false)
  const submit = async (e) => {
    e.preventDefault()
    setError(null)
    setBusy(true)
    try {
      const photo = photoRef.current?.files?.[0]
      const images = photo
        ? [{ imageLevel: 'ACTIVITY', imageType: 'DAMAGE', tempURL: (await uploadImage(post, photo)).tempURL }]
        : undefined
      await put(`/api/v1/packages/${encodeURIComponent(pkg.packageId)}`, {
        package: {},
        lastActivity: { status: 'DAMAGED', location: {}, ...(note.trim() ? { comment: note.trim() } : {}) },
        ...(images ? { images } : {}),
      })
      setNote('')
      if (photoRef.current) photoRef.current.value = ''
      await onDone(photo ? 'Marked damaged, with the photo.' : 'Marked damaged.')
    } catch (err) {
      setError(err)
    } finally {
      setBusy(false)
    }
  }
  const err = error instanceof ApiError ? error : null
  return html`<form class="card" novalidate onSubmit=${submit} aria-labelledby="damage-title">
    <h2 id="damage-title">Damage</h2>
    ${pkg.damaged && html`<p data-testid="damaged">This parcel is marked damaged.</p>`}
    <${Alert} messages=${error ? (err ? err.unclaimed(['images', 'lastActivity.comment']) : [error.message]) : []} />
    <${Field} label="Photo of the damage" id="damage-photo" errors=${err?.forField('images') ?? []}>
      ${(a) => html`<input ...${a} ref=${photoRef} type="file" accept="image/*" capture="environment" />`}
    </${Field}>
    <${Field} label="What is damaged (optional)" id="damage-note" errors=${err?.forField('lastActivity.comment') ?? []}>
      ${(a) => html`<input ...${a} value=${note} onInput=${(e) => setNote(e.target.value)} />`}
    </${Field}>
    <button type="submit" disabled=${busy}>Mark damaged</button>
  </form>`
}
