// Hand over: find what waits under a pickup code or for a recipient, tick the parcels, who
// collects them, their signature; "Hand over" is one pickup (POST /api/v1/pickups): every ticked
// parcel DELIVERED in one transaction, the signature attached to the hand-over.
import { useEffect, useRef, useState } from 'preact/hooks'
import { get, post, ApiError, qs } from '../api.js'
import { html, Alert, Link, siteName } from '../ui.js'
import { Combobox, searchContacts } from '../combobox.js'
import { HoldNote } from '../hold-note.js'
import { DeskTexts } from '../desk-texts.js'
import { SignaturePad, proofRule } from '../signature.js'
import { loadSites, uploadImage } from '../data.js'
import { WAITING, statusFilter } from '../statuses.js'
import { FlagBadges, HandOverNotes, feeText, money, withFlagProof } from './parcel-flags.js'

/** A pickup code as the arrival email shows it: 6 of Crockford's base 32 without 0 and 1, any case, spaces and hyphens ignored. */
const PICKUP_CODE = /^[2-9A-HJKMNP-TV-Z]{6}$/
export const asPickupCode = (text) => {
  const code = text.replace(/[\s-]/g, '').toUpperCase()
  return PICKUP_CODE.test(code) ? code : null
}

const waiting = async (search, extra = {}) =>
  (await get(`/api/v1/packages?${qs({ search, status: statusFilter(WAITING), size: 100, ...extra })}`)).packages

const when = (iso) => new Date(iso).toLocaleString(undefined, { dateStyle: 'medium', timeStyle: 'short' })

/**
 * A code with nothing waiting: a code already used says when and to whom (the clerk can tell the
 * collector), any other is unknown. The code itself is never repeated back.
 */
async function codeRefusal(code) {
  const used = (await get(`/api/v1/packages?${qs({ search: `pickupCode:${code}`, size: 5 })}`)).packages
  const done = used.find((p) => p.deliveryTime)
  if (done)
    return `This pickup code was already used: handed over on ${when(done.deliveryTime)} to ${done.givenTo?.name ?? 'the recipient'}.`
  return 'No parcel has this pickup code. Check the code with the collector, or search by their name.'
}

/** The receipt's holding fees (POST /api/v1/pickups answers them), as the desk says them. */
const feesCharged = (pickup) =>
  pickup.holdingFees
    ? [`Holding fee charged: ${pickup.holdingFees.totals.map((t) => money(t.amount, t.currency)).join(' + ')}.`]
    : []

/** Fields of the pickup's errors[] and the control that shows them. */
const FIND = ['pickupCode', 'contactId', 'packageIds']

export function Pickup() {
  const [who, setWho] = useState(null)
  // What the hand-over selects by: { pickupCode } or { contactId }.
  const [selector, setSelector] = useState(null)
  const [packages, setPackages] = useState([])
  const [ticked, setTicked] = useState(new Set())
  const [collector, setCollector] = useState(null)
  const [collectorName, setCollectorName] = useState('')
  const [error, setError] = useState(null)
  // "Sign first", shown under the pad until the pad gets a stroke.
  const [unsigned, setUnsigned] = useState(null)
  const [done, setDone] = useState(null)
  const [busy, setBusy] = useState(false)
  const [typed, setTyped] = useState('')
  const [photo, setPhoto] = useState(null)
  const [sites, setSites] = useState(new Map())
  // Each hand-over starts a new round: the find field is rebuilt empty (it keeps its own text).
  const [round, setRound] = useState(0)
  const pad = useRef(null)
  const findRef = useRef(null)
  const photoRef = useRef(null)
  // The desk starts here (a scanner or a typed code), and comes back here after each hand-over.
  useEffect(() => findRef.current?.focus(), [round])
  useEffect(() => {
    loadSites()
      .then((list) => setSites(new Map(list.map((x) => [x.inboundSiteId, x]))))
      .catch(() => {})
  }, [])

  const show = (sel, list) => {
    setUnsigned(null) // another collector: nothing of the last one's hand-over stays
    setSelector(sel)
    setPackages(list)
    setTicked(new Set(list.map((p) => p.packageId)))
    const r = list[0]?.receiver
    setCollector(r?.contactId ? { id: r.contactId, label: r.name } : null)
  }
  const choose = async (o) => {
    setWho(o)
    setDone(null)
    setError(null)
    if (!o) return
    try {
      const list = await waiting(`receiver.name:${o.label}`)
      show(
        { contactId: o.id },
        list.filter((p) => p.receiver?.contactId === o.id),
      )
    } catch (err) {
      setError(err)
    }
  }
  // Enter without a name picked: a pickup code, else the end of a tracking number.
  const byText = async () => {
    const text = findRef.current?.value?.trim()
    if (!text) return
    setDone(null)
    setError(null)
    try {
      const code = asPickupCode(text)
      if (code) {
        const list = await waiting(`pickupCode:${code}`)
        if (list.length > 0) return show({ pickupCode: code }, list)
        show(null, [])
        return setError(new Error(await codeRefusal(code)))
      }
      const list = await waiting(`trackingNumber:${text.replace(/\s+/g, '')}`, { searchPosition: 'ends' })
      const receiver = list[0]?.receiver?.contactId
      if (!receiver) return show(null, [])
      show(
        { contactId: receiver },
        list.filter((p) => p.receiver?.contactId === receiver),
      )
    } catch (err) {
      setError(err)
    }
  }

  const handOver = async (e) => {
    e.preventDefault()
    setError(null)
    const chosen = packages.filter((p) => ticked.has(p.packageId))
    const noParcel = !selector || chosen.length === 0
    const drawn = pad.current && !pad.current.isEmpty()
    const typedName = typed.trim()
    const proofGiven = drawn || typedName || (proof.photo && photo)
    const noSignature = proof.rule === 'required' && !proofGiven
    setUnsigned(
      noSignature
        ? `Signature required: the collector signs in the Signature box. Their full name typed below counts too${proof.photo ? ', as does a photo' : ''}.`
        : null,
    )
    if (noParcel) setError(new Error('Tick at least one parcel.'))
    if (noParcel || noSignature) return
    setBusy(true)
    try {
      const images = []
      if (drawn && proof.rule !== 'off') images.push({ imageType: 'SIGNATURE', blob: await pad.current.toBlob() })
      if (photo && proof.photo) images.push({ imageType: 'PHOTO', blob: photo })
      const uploaded = []
      for (const i of images)
        uploaded.push({ imageType: i.imageType, tempURL: (await uploadImage(post, i.blob)).tempURL })
      const name = collectorName.trim()
      const pickup = await post('/api/v1/pickups', {
        ...selector,
        packageIds: chosen.map((p) => p.packageId),
        ...(collector ? { givenTo: { contactId: collector.id } } : name ? { givenTo: { name } } : {}),
        ...(uploaded.length ? { images: uploaded } : {}),
        // A typed signature is sent as typed: the server records it so (pickup and activity comment).
        ...(!drawn && typedName && proof.rule !== 'off' ? { typedSignature: typedName } : {}),
      })
      setDone({ pickup, parcels: chosen })
      // The next collector starts from a clean form, in the find field.
      setWho(null)
      setSelector(null)
      setPackages([])
      setTicked(new Set())
      setCollector(null)
      setCollectorName('')
      setTyped('')
      setPhoto(null)
      if (photoRef.current) photoRef.current.value = ''
      pad.current.clear()
      setUnsigned(null)
      setRound(round + 1)
    } catch (err) {
      setError(err)
    } finally {
      setBusy(false)
    }
  }

  const err = error instanceof ApiError ? error : null
  const known = [...FIND, 'givenTo', 'images', 'typedSignature']
  const chosen = packages.filter((p) => ticked.has(p.packageId))
  const proof = withFlagProof(proofRule(chosen, sites), chosen)
  // The recipient standing at the desk: whom they may ask to text (DeskTexts).
  const recipient = packages[0]?.receiver?.contactId
    ? packages[0].receiver
    : who && { contactId: who.id, name: who.label }
  return html`<main id="main" class="pickup">
    <h1>Hand over</h1>
    <${Combobox}
      key=${round}
      label="Pickup code or recipient"
      id="pickup-find"
      value=${who}
      inputRef=${findRef}
      hint="Type a name and pick it, or a pickup code or the end of a tracking number and Enter."
      errors=${err?.forField(...FIND) ?? []}
      search=${(q) => (asPickupCode(q) ? Promise.resolve([]) : searchContacts(get, q))}
      onPick=${choose}
      onEnterWithoutList=${byText}
    />
    <div aria-live="polite">
      ${done && html`<${Alert} kind="info" messages=${[`Handed over ${done.parcels.length} parcel${done.parcels.length === 1 ? '' : 's'} to ${done.pickup.givenTo.name}: ${done.parcels.map((p) => p.trackingNumber).join(', ')}.`, ...feesCharged(done.pickup)]} />`}
    </div>
    ${recipient && html`<${DeskTexts} key=${recipient.contactId} contactId=${recipient.contactId} name=${recipient.name} />`}
    <form onSubmit=${handOver} aria-label="Hand over parcels">
      <fieldset>
        <legend>Parcels waiting</legend>
        <${HoldNote} contactId=${packages[0]?.receiver?.contactId} />
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
              <span>${p.trackingNumber}</span> <small>${p.carrier?.name ?? ''} · ${siteName(p.currentLocation)} ${p.packageLocation ?? ''}${p.pickupCode ? ` · code ${p.pickupCode}` : ''}</small>
              <${FlagBadges} flags=${p.flags} />${p.holdingFee && html`<small class="fee">${feeText(p.holdingFee)}</small>`}
            </label> <${Link} to=${`/packages/${p.packageId}`} aria-label=${`Details of ${p.trackingNumber}`}>details</${Link}></li>`,
          )}
        </ul>
      </fieldset>
      <${Combobox}
        label="Collected by"
        id="pickup-collector"
        value=${collector}
        hint="The recipient, or a contact collecting for them; for someone else, clear it and type their name below."
        search=${(q) => searchContacts(get, q)}
        errors=${err?.forField('givenTo.contactId') ?? []}
        onPick=${(o) => setCollector(o)}
      />
      ${
        !collector &&
        html`<div class="field">
          <label for="pickup-name">Collector's name</label>
          <input
            id="pickup-name"
            value=${collectorName}
            aria-invalid=${err?.forField('givenTo').length ? 'true' : undefined}
            onInput=${(e) => setCollectorName(e.target.value)}
          />
          ${err?.forField('givenTo').length > 0 && html`<p class="field-error" role="alert">${err.forField('givenTo').join(' ')}</p>`}
        </div>`
      }
      ${proof.rule === 'off' && html`<p class="muted">No signature needed here.</p>`}
      <div hidden=${proof.rule === 'off'}>
        <${SignaturePad}
          padRef=${pad}
          errors=${[...(unsigned ? [unsigned] : []), ...(err?.forField('images') ?? [])]}
          onChange=${(empty) => {
            // A stroke answers "sign first" (and a refused signature image): the message goes with it.
            if (empty) return
            setUnsigned(null)
            if (err?.forField('images').length > 0) setError(null)
          }}
        />
        <div class="field">
          <label for="pickup-typed">Or type the collector's full name as their signature</label>
          <input
            id="pickup-typed"
            autocomplete="off"
            aria-invalid=${err?.forField('typedSignature').length ? 'true' : undefined}
            value=${typed}
            onInput=${(e) => {
              setTyped(e.target.value)
              if (e.target.value.trim()) setUnsigned(null)
            }}
          />
        </div>
        ${
          proof.photo &&
          html`<div class="field">
            <label for="pickup-photo">Or a photo of the collector or their ID</label>
            <input
              id="pickup-photo"
              ref=${photoRef}
              type="file"
              accept="image/*"
              capture="user"
              onChange=${(e) => {
                setPhoto(e.target.files?.[0] ?? null)
                if (e.target.files?.[0]) setUnsigned(null)
              }}
            />
          </div>`
        }
        ${proof.rule === 'optional' && html`<p class="muted">Signature optional at this site.</p>`}
      </div>
      <${HandOverNotes} parcels=${chosen} />
      <${Alert} messages=${error ? (err ? err.unclaimed(known) : [error.message]) : []} />
      <button type="submit" disabled=${busy}>Hand over</button>
    </form>
  </main>`
}
