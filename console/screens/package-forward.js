// Forward a waiting parcel (issue 30.2): to another site of the subscription (it waits there from
// now on) or to an address outside (its wait ends: FORWARDED). Either is one entry of its history.
import { useState } from 'preact/hooks'
import { post, ApiError } from '../api.js'
import { html, Field, Alert, siteName } from '../ui.js'
import { WAITING } from '../statuses.js'

export function ForwardPackage({ pkg, sites, onDone }) {
  const [to, setTo] = useState('site')
  const [siteId, setSiteId] = useState('')
  const [address, setAddress] = useState('')
  const [comment, setComment] = useState('')
  const [error, setError] = useState(null)
  if (pkg.archived || !WAITING.includes(pkg.currentStatus)) return null
  const here = pkg.currentLocation?.inboundSiteId
  const submit = async (e) => {
    e.preventDefault()
    setError(null)
    const body = to === 'site' ? { inboundSiteId: siteId } : { address: address.trim() }
    if (comment.trim()) body.comment = comment.trim()
    try {
      await post(`/api/v1/packages/${encodeURIComponent(pkg.packageId)}/forward`, body)
      setAddress('')
      setComment('')
      await onDone(to === 'site' ? 'Forwarded to the site.' : 'Forwarded to the address.')
    } catch (err) {
      setError(err)
    }
  }
  const err = error instanceof ApiError ? error : null
  const unclaimed = error ? (err ? err.unclaimed(['inboundSiteId', 'address', 'comment']) : [error.message]) : []
  const chooser = (value, label) =>
    html`<label
      ><input type="radio" name="forward-to" value=${value} checked=${to === value} onChange=${() => setTo(value)} />
      ${label}</label
    >`
  return html`<form class="card" novalidate onSubmit=${submit} aria-labelledby="forward-title">
    <h2 id="forward-title">Forward</h2>
    <${Alert} messages=${unclaimed} />
    <fieldset>
      <legend>Forward to</legend>
      ${chooser('site', 'Another site')} ${chooser('address', 'An address')}
    </fieldset>
    ${
      to === 'site'
        ? html`<${Field} label="Site" id="forward-site" errors=${err?.forField('inboundSiteId') ?? []}>
            ${(a) =>
              html`<select ...${a} value=${siteId} onChange=${(e) => setSiteId(e.target.value)}>
                <option value="">Choose a site…</option>
                ${sites
                  .filter((s) => s.inboundSiteId !== here && s.status !== 'inactive')
                  .map((s) => html`<option value=${s.inboundSiteId}>${siteName(s)}</option>`)}
              </select>`}
          </${Field}>`
        : html`<${Field} label="Address" id="forward-address" errors=${err?.forField('address') ?? []}>
            ${(a) => html`<textarea ...${a} value=${address} onInput=${(e) => setAddress(e.target.value)}></textarea>`}
          </${Field}>`
    }
    <${Field} label="Note (optional)" id="forward-comment" errors=${err?.forField('comment') ?? []}>
      ${(a) => html`<input ...${a} value=${comment} onInput=${(e) => setComment(e.target.value)} />`}
    </${Field}>
    <button type="submit" disabled=${to === 'site' ? !siteId : !address.trim()}>Forward</button>
  </form>`
}
