// Receive: scan (keyboard wedge: text + Enter, or the camera), check the decode, pick the
// recipient, save, and the cursor is back in "Scan" for the next parcel. Bulk mode keeps a list
// (receive-bulk.js), each row with its own recipient.
import { useEffect, useRef, useState } from 'preact/hooks'
import { get, post, ApiError } from '../api.js'
import { html, Field, Alert, Link, newId } from '../ui.js'
import { Combobox, searchContacts } from '../combobox.js'
import { FINISHED } from '../statuses.js'
import { BulkList } from './receive-bulk.js'
import { loadSites, rememberedLocation, rememberLocation, uploadImage } from '../data.js'

/** What the decode answered, as the screen shows it and the save sends it. */
function fromDecode(raw, d) {
  const p = d.package
  const receiver = p.receiver?.contactId ? { id: p.receiver.contactId, label: p.receiver.name ?? '' } : null
  return {
    raw,
    trackingNumber: p.trackingNumber ?? raw,
    carrier: p.carrier ?? (d.decodedCarriers.length === 1 ? d.decodedCarriers[0] : undefined),
    service: p.service?.name ?? d.decodedCarriers[0]?.service?.name,
    receiver,
    labelName: p.receiver?.name,
    held:
      p.packageId && !FINISHED.includes(p.currentStatus) ? { packageId: p.packageId, status: p.currentStatus } : null,
  }
}

export function packageBody(item, recipient, location) {
  return {
    package: {
      trackingNumber: item.trackingNumber,
      ...(item.carrier?.carrierId ? { carrier: { carrierId: item.carrier.carrierId } } : {}),
      ...(recipient ? { receiver: { contactId: recipient.id } } : {}),
    },
    lastActivity: {
      status: 'RECEIVED',
      ...(location.inboundSiteId
        ? {
            location: {
              inboundSiteId: location.inboundSiteId,
              ...(location.packageLocation ? { packageLocation: location.packageLocation } : {}),
            },
          }
        : {}),
    },
  }
}

const FIELDS = ['package.trackingNumber', 'package.receiver', 'lastActivity.location', 'images']

export function Receive() {
  const scanRef = useRef(null)
  const recipientRef = useRef(null)
  const saveRef = useRef(null)
  const photoRef = useRef(null)
  const videoRef = useRef(null)
  const [scan, setScan] = useState('')
  const [item, setItem] = useState(null)
  const [recipient, setRecipient] = useState(null)
  const [location, setLocation] = useState(rememberedLocation())
  const [sites, setSites] = useState([])
  const [error, setError] = useState(null)
  const [saved, setSaved] = useState([])
  const [busy, setBusy] = useState(false)
  const [bulk, setBulk] = useState(false)
  const [batch, setBatch] = useState([])
  const [camera, setCamera] = useState(null)

  useEffect(() => {
    loadSites().then(setSites, (e) => setError(e))
    scanRef.current?.focus()
  }, [])
  useEffect(() => rememberLocation(location), [location.inboundSiteId, location.packageLocation])

  const decode = async (raw) => {
    const d = await get(`/api/v1/packages/tracking/decode?trackingNumber=${encodeURIComponent(raw)}`)
    return fromDecode(raw, d)
  }

  const onScan = async (e) => {
    e.preventDefault()
    const raw = scan
    if (!raw.trim()) return
    setError(null)
    setBusy(true)
    try {
      const decoded = await decode(raw)
      setScan('')
      if (bulk) {
        setBatch((b) => [...b, { key: newId('b'), ...decoded }])
        scanRef.current?.focus()
        return
      }
      // Each scan is a new form (its own Recipient box): nothing typed for the last parcel carries over.
      setItem({ ...decoded, key: newId('scan') })
      setRecipient(decoded.receiver)
      // The next key the clerk presses: Enter to save when the label named the recipient, else the name.
      setTimeout(() => (decoded.receiver ? saveRef.current : recipientRef.current)?.focus(), 0)
    } catch (err) {
      setError(err)
    } finally {
      setBusy(false)
    }
  }

  const save = async (e) => {
    e?.preventDefault()
    if (!item) return
    setBusy(true)
    setError(null)
    try {
      const photo = photoRef.current?.files?.[0]
      const body = packageBody(item, recipient, location)
      if (photo) {
        const image = await uploadImage(post, photo)
        body.images = [{ imageLevel: 'ASSET', imageType: 'PHOTO', tempURL: image.tempURL }]
      }
      const res = await post('/api/v1/packages', body)
      setSaved((s) => [{ ...res, recipient: recipient?.label ?? '' }, ...s].slice(0, 10))
      setItem(null)
      setRecipient(null)
      if (photoRef.current) photoRef.current.value = ''
      scanRef.current?.focus()
    } catch (err) {
      setError(err)
    } finally {
      setBusy(false)
    }
  }

  const saveAll = async () => {
    setBusy(true)
    setError(null)
    const left = []
    const done = []
    for (const b of batch) {
      try {
        done.push({
          ...(await post('/api/v1/packages', packageBody(b, b.receiver, location))),
          recipient: b.receiver?.label ?? '',
        })
      } catch (err) {
        left.push({ ...b, error: err.message })
      }
    }
    setSaved((s) => [...done.reverse(), ...s].slice(0, 20))
    setBatch(left)
    setBusy(false)
    scanRef.current?.focus()
  }

  const openCamera = async () => {
    const { scanFromCamera, cameraAvailable } = await import('../camera.js')
    if (!cameraAvailable()) return setError(new Error('No camera is available in this browser.'))
    const controller = new AbortController()
    setCamera(controller)
    try {
      await new Promise((r) => setTimeout(r, 0))
      const text = await scanFromCamera(videoRef.current, controller.signal)
      if (text) {
        setScan(text)
        setTimeout(() => scanRef.current?.form?.requestSubmit(), 0)
      }
    } catch (err) {
      setError(new Error(`The camera could not be used: ${err.message}`))
    } finally {
      setCamera(null)
    }
  }

  const err = error instanceof ApiError ? error : null
  return html`<main id="main" class="receive">
    <h1>Receive</h1>
    <form class="scan-row" onSubmit=${onScan}>
      <${Field} label="Scan" id="receive-scan" errors=${err?.forField('trackingNumber', 'package.trackingNumber') ?? []}
        hint="Scan a label or type a tracking number, then Enter.">
        ${(a) =>
          html`<input
            ...${a}
            ref=${scanRef}
            autocomplete="off"
            spellcheck="false"
            value=${scan}
            onInput=${(e) => setScan(e.target.value)}
          />`}
      </${Field}>
      <div class="row-actions">
        <label class="check"><input type="checkbox" checked=${bulk}
          onChange=${(e) => {
            setBulk(e.target.checked)
            setItem(null)
            scanRef.current?.focus()
          }} /> Bulk mode</label>
        ${
          camera
            ? html`<button type="button" class="secondary" onClick=${() => camera.abort()}>Stop camera</button>`
            : html`<button type="button" class="secondary" onClick=${openCamera}>Scan with camera</button>`
        }
      </div>
    </form>
    ${camera && html`<video ref=${videoRef} class="camera" muted playsinline aria-label="Camera preview"></video>`}
    <${Alert} messages=${error ? (err ? err.unclaimed(FIELDS) : [error.message]) : []} />

    <fieldset class="location">
      <legend>Where it goes</legend>
      <${Field} label="Location" id="receive-site">
        ${(a) =>
          html`<select
            ...${a}
            value=${location.inboundSiteId}
            onChange=${(e) => setLocation({ ...location, inboundSiteId: e.target.value })}
          >
            <option value="">Choose a site…</option>
            ${sites.map((s) => html`<option value=${s.inboundSiteId}>${s.locationHierarchy.replace(/\| /g, ' › ')}</option>`)}
          </select>`}
      </${Field}>
      <${Field} label="Shelf" id="receive-shelf" errors=${err?.forField('lastActivity.location.packageLocation') ?? []}>
        ${(a) =>
          html`<input
            ...${a}
            value=${location.packageLocation}
            onInput=${(e) => setLocation({ ...location, packageLocation: e.target.value })}
          />`}
      </${Field}>
    </fieldset>

    ${
      !bulk &&
      item &&
      html`<form key=${item.key} class="decoded card" onSubmit=${save} aria-label="Package to save">
      <dl class="facts">
        <dt>Tracking number</dt><dd data-testid="decoded-tracking">${item.trackingNumber}</dd>
        <dt>Carrier</dt><dd>${item.carrier?.name ?? 'Unknown'}</dd>
        ${
          item.service &&
          html`<dt>Service</dt>
            <dd>${item.service}</dd>`
        }
        ${
          item.labelName &&
          html`<dt>Label name</dt>
            <dd>${item.labelName}</dd>`
        }
      </dl>
      ${item.held && html`<${Alert} kind="warning" messages=${[`Already held (${item.held.status}): this tracking number is on the shelf.`]} />`}
      <${Combobox} label="Recipient" id="receive-recipient" value=${recipient} inputRef=${recipientRef}
        search=${(q) => searchContacts(get, q)} errors=${err?.forField('package.receiver') ?? []}
        onPick=${(o) => {
          setRecipient(o)
          if (o) setTimeout(() => saveRef.current?.focus(), 0)
        }} onEnterWithoutList=${() => saveRef.current?.focus()} />
      <${Field} label="Photo (optional)" id="receive-photo" errors=${err?.forField('images') ?? []}>
        ${(a) => html`<input ...${a} ref=${photoRef} type="file" accept="image/*" capture="environment" />`}
      </${Field}>
      <div class="actions">
        <button type="submit" id="save-package" ref=${saveRef} disabled=${busy}>Save package</button>
        <button type="button" class="secondary" onClick=${() => {
          setItem(null)
          scanRef.current?.focus()
        }}>Cancel</button>
      </div>
    </form>`
    }

    ${
      bulk &&
      html`<${BulkList}
        batch=${batch}
        setBatch=${setBatch}
        busy=${busy}
        onSaveAll=${saveAll}
        backToScan=${() => scanRef.current?.focus()}
      />`
    }

    <section aria-labelledby="saved-title" class="saved">
      <h2 id="saved-title">Saved</h2>
      <ul role="status">
        ${saved.map(
          (s) =>
            html`<li>Saved <${Link} to=${`/packages/${s.packageId}`}>${s.trackingNumber}</${Link}>${s.recipient && ` for ${s.recipient}`}</li>`,
        )}
      </ul>
    </section>
  </main>`
}
