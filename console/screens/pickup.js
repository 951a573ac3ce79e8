// Hand over: find what a recipient has waiting, tick the parcels, who collects them, their
// signature, and each ticked package becomes DELIVERED with the signature image on that activity.
import { useRef, useState } from 'preact/hooks'
import { get, post, put, ApiError, qs } from '../api.js'
import { html, Alert, Link, siteName } from '../ui.js'
import { Combobox, searchContacts } from '../combobox.js'
import { SignaturePad } from '../signature.js'
import { uploadImage } from '../data.js'

const WAITING = 'UNDELIVERED'

async function waitingFor(contact) {
  const { packages } = await get(
    `/api/v1/packages?${qs({ search: `receiver.name:${contact.label}`, status: WAITING, size: 100 })}`,
  )
  return packages.filter((p) => p.receiver?.contactId === contact.id)
}

async function waitingByNumber(text) {
  const { packages } = await get(
    `/api/v1/packages?${qs({ search: `trackingNumber:${text.replace(/\s+/g, '')}`, searchPosition: 'ends', status: WAITING, size: 50 })}`,
  )
  return packages
}

export function Pickup() {
  const [who, setWho] = useState(null)
  const [packages, setPackages] = useState([])
  const [ticked, setTicked] = useState(new Set())
  const [collector, setCollector] = useState(null)
  const [collectorName, setCollectorName] = useState('')
  const [error, setError] = useState(null)
  const [done, setDone] = useState(null)
  const [busy, setBusy] = useState(false)
  const pad = useRef(null)
  const findRef = useRef(null)

  const show = (list) => {
    setPackages(list)
    setTicked(new Set(list.map((p) => p.packageId)))
  }
  const choose = async (o) => {
    setWho(o)
    setDone(null)
    if (!o) return
    setCollector(o)
    try {
      show(await waitingFor(o))
    } catch (err) {
      setError(err)
    }
  }
  const byNumber = async () => {
    const text = findRef.current?.value?.trim()
    if (!text) return
    try {
      const list = await waitingByNumber(text)
      show(list)
      const r = list[0]?.receiver
      if (r?.contactId) setCollector({ id: r.contactId, label: r.name })
    } catch (err) {
      setError(err)
    }
  }

  const handOver = async (e) => {
    e.preventDefault()
    setError(null)
    const chosen = packages.filter((p) => ticked.has(p.packageId))
    const problems = []
    if (chosen.length === 0) problems.push('Tick at least one parcel.')
    if (!collector && !collectorName.trim()) problems.push('Say who collects the parcels.')
    if (!pad.current || pad.current.isEmpty()) problems.push('The collector signs in the Signature box.')
    if (problems.length) return setError(new Error(problems.join(' ')))
    setBusy(true)
    try {
      const png = await pad.current.toBlob()
      for (const p of chosen) {
        // One image per activity: the same signature is stored with each parcel's hand-over.
        const signature = await uploadImage(post, png)
        await put(`/api/v1/packages/${p.packageId}`, {
          package: collector ? { givenTo: { contactId: collector.id } } : {},
          lastActivity: {
            status: 'DELIVERED',
            ...(collector ? {} : { comment: `Collected by ${collectorName.trim()}` }),
          },
          images: [{ imageLevel: 'ACTIVITY', imageType: 'SIGNATURE', tempURL: signature.tempURL }],
        })
      }
      setDone(chosen)
      setPackages(packages.filter((p) => !ticked.has(p.packageId)))
      setTicked(new Set())
      pad.current.clear()
    } catch (err) {
      setError(err)
    } finally {
      setBusy(false)
    }
  }

  const err = error instanceof ApiError ? error : null
  return html`<main id="main" class="pickup">
    <h1>Hand over</h1>
    <${Combobox}
      label="Pickup code or recipient"
      id="pickup-find"
      value=${who}
      inputRef=${findRef}
      hint="Type a name, or a tracking number and Enter."
      search=${(q) => searchContacts(get, q)}
      onPick=${choose}
      onEnterWithoutList=${byNumber}
    />
    ${done && html`<${Alert} kind="info" messages=${[`Handed over ${done.length} parcel${done.length === 1 ? '' : 's'}: ${done.map((p) => p.trackingNumber).join(', ')}.`]} />`}
    <form onSubmit=${handOver} aria-label="Hand over parcels">
      <fieldset>
        <legend>Parcels waiting</legend>
        ${packages.length === 0 && html`<p class="muted">No parcel waiting${who ? ` for ${who.label}` : ''}.</p>`}
        <ul class="parcels">
          ${packages.map(
            (p) => html`<li><label class="check">
              <input type="checkbox" checked=${ticked.has(p.packageId)} onChange=${(e) => {
                const next = new Set(ticked)
                if (e.target.checked) next.add(p.packageId)
                else next.delete(p.packageId)
                setTicked(next)
              }} />
              <span>${p.trackingNumber}</span> <small>${p.carrier?.name ?? ''} · ${siteName(p.currentLocation)} ${p.packageLocation ?? ''}</small>
            </label> <${Link} to=${`/packages/${p.packageId}`} aria-label=${`Details of ${p.trackingNumber}`}>details</${Link}></li>`,
          )}
        </ul>
      </fieldset>
      <${Combobox}
        label="Collected by"
        id="pickup-collector"
        value=${collector}
        hint="The recipient, or the contact collecting for them; a name not in the contacts goes into the comment."
        search=${(q) => searchContacts(get, q)}
        errors=${err?.forField('package.givenTo') ?? []}
        onPick=${(o) => setCollector(o)}
      />
      ${
        !collector &&
        html`<div class="field">
          <label for="pickup-name">Collector's name</label>
          <input id="pickup-name" value=${collectorName} onInput=${(e) => setCollectorName(e.target.value)} />
        </div>`
      }
      <${SignaturePad} padRef=${pad} />
      <${Alert} messages=${error ? (err ? err.unclaimed(['package.givenTo']) : [error.message]) : []} />
      <button type="submit" disabled=${busy}>Hand over</button>
    </form>
  </main>`
}
