// Receive: scan (keyboard wedge: text + Enter, or the camera), check the decode, pick the
// recipient, save, and the cursor is back in "Scan" for the next parcel. Every save goes through
// the outbox (../outbox.js): written in the browser first, then sent, so a network drop costs no
// scan. Bulk mode keeps a list (receive-bulk.js), each row with its own recipient.
import { useEffect, useRef, useState } from 'preact/hooks'
import { get, post, ApiError, unreachable } from '../api.js'
import { remember, searchRecipients } from '../recipients.js'
import { html, Field, Alert, Link, newId } from '../ui.js'
import { Combobox } from '../combobox.js'
import { AddContact } from '../add-contact.js'
import { discard, enqueue, queued, sendQueued, settle } from '../outbox.js'
import { fromDecode, packageBody, undecoded, withCarrier, INTERNAL, UNKNOWN_FORMAT } from '../receiving.js'
import { BulkList } from './receive-bulk.js'
import { QueuePanel } from './receive-queue.js'
import { DecodedFacts, UnknownFormat, WhereItGoes, describeScan } from './receive-item.js'
import { loadSites, rememberedLocation, rememberLocation, uploadImage } from '../data.js'

const FIELDS = ['package.trackingNumber', 'package.receiver', 'lastActivity.location', 'images']
/** How often a queue that is waiting tries the server again (and at once when the browser is back online). */
const RETRY_MS = 5_000

export function Receive({ user }) {
  const owner = user?.userId ?? user?.email ?? 'clerk'
  const scanRef = useRef(null)
  const recipientRef = useRef(null)
  const saveRef = useRef(null)
  const photoRef = useRef(null)
  const videoRef = useRef(null)
  const [scan, setScan] = useState('')
  const [item, setItem] = useState(null)
  const [recipient, setRecipient] = useState(null)
  const [typed, setTyped] = useState('')
  const [adding, setAdding] = useState(null)
  const [location, setLocation] = useState(rememberedLocation())
  const [sites, setSites] = useState([])
  const [error, setError] = useState(null)
  const [saved, setSaved] = useState([])
  const [queue, setQueue] = useState([])
  const [said, setSaid] = useState('')
  const [busy, setBusy] = useState(false)
  const [bulk, setBulk] = useState(false)
  const [batch, setBatch] = useState([])
  const [camera, setCamera] = useState(null)
  const focusScan = () => setTimeout(() => scanRef.current?.focus(), 0)

  const refresh = async () => setQueue(await queued(owner))
  const onSaved = (res, entry) => {
    const tn = res.trackingNumber ?? entry.trackingNumber
    setSaved((s) =>
      [{ packageId: res.packageId, trackingNumber: tn, recipient: entry.recipient?.label ?? '' }, ...s].slice(0, 20),
    )
    setSaid(`Saved ${tn}.`)
  }
  const flush = async () => {
    await sendQueued(owner, onSaved).catch(() => false)
    await refresh()
  }

  useEffect(() => {
    loadSites().then(setSites, (e) => setError(e))
    scanRef.current?.focus()
    // What an earlier page (or an earlier browser) left unsent goes first.
    void flush()
    const online = () => void flush()
    window.addEventListener('online', online)
    const timer = setInterval(() => void flush(), RETRY_MS)
    return () => {
      window.removeEventListener('online', online)
      clearInterval(timer)
    }
  }, [])
  useEffect(() => rememberLocation(location), [location.inboundSiteId, location.packageLocation])

  const decode = async (raw) => {
    const d = await get(`/api/v1/packages/tracking/decode?trackingNumber=${encodeURIComponent(raw)}`, {
      timeoutMs: 10_000,
    })
    return fromDecode(raw, d)
  }

  const onScan = async (e) => {
    e.preventDefault()
    const raw = scan
    // The field is emptied at once: the next scan replaces this one, it never appends to it.
    setScan('')
    if (!raw.trim()) return
    setError(null)
    setBusy(true)
    let decoded
    try {
      decoded = await decode(raw)
    } catch (err) {
      if (!unreachable(err)) {
        setError(err)
        setSaid(err.message)
        setItem(null)
        setBusy(false)
        return focusScan()
      }
      decoded = undecoded(raw)
    }
    setBusy(false)
    setSaid(describeScan(decoded))
    if (bulk) {
      setBatch((b) => [...b, { key: newId('b'), ...decoded }])
      return focusScan()
    }
    // Each scan is a new form (its own Recipient box): nothing typed for the last parcel carries over.
    setItem({ ...decoded, key: newId('scan') })
    setRecipient(decoded.receiver)
    setTyped('')
    setAdding(null)
    // Not a carrier's number: the focus stays in Scan, so the next scan's Enter never confirms it.
    if (decoded.unknownFormat) return focusScan()
    // The next key the clerk presses: Enter to save when the label named the recipient, else the name.
    setTimeout(() => (decoded.receiver ? saveRef.current : recipientRef.current)?.focus(), 0)
  }

  const save = async (e) => {
    e?.preventDefault()
    if (!item || adding) return
    if (item.unknownFormat) return setError(new Error(UNKNOWN_FORMAT))
    if (typed.trim() && !recipient) {
      setError(new Error(`No match for "${typed.trim()}": pick a recipient from the list or add the contact.`))
      return recipientRef.current?.focus()
    }
    setBusy(true)
    setError(null)
    try {
      const photo = photoRef.current?.files?.[0]
      const body = item.offline ? undefined : packageBody(item, recipient, location)
      if (photo && body) {
        const image = await uploadImage(post, photo)
        body.images = [{ imageLevel: 'ASSET', imageType: 'PHOTO', tempURL: image.tempURL }]
      }
      const { raw, trackingNumber, internal = false } = item
      await enqueue(owner, { raw, trackingNumber, body, recipient, location, internal, again: Boolean(item.finished) })
      setItem(null)
      setRecipient(null)
      setTyped('')
      if (photoRef.current) photoRef.current.value = ''
      focusScan()
      await refresh()
      void flush()
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
    for (const b of batch) {
      if (b.unknownFormat) {
        left.push({ ...b, error: UNKNOWN_FORMAT })
        continue
      }
      const body = b.offline ? undefined : packageBody(b, b.receiver, location)
      const { raw, trackingNumber, receiver: recipient, internal = false } = b
      await enqueue(owner, { raw, trackingNumber, body, recipient, location, internal, again: Boolean(b.finished) })
    }
    // Sent before the list empties: "Saved" is then what the server holds (or the queue says why not).
    await flush()
    setBatch(left)
    setBusy(false)
    focusScan()
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
  const noMatch = (text) =>
    html`<p class="no-match" role="status">
      No match for “${text}”.
      <button type="button" class="secondary" onClick=${() => setAdding(text)}>Add contact</button>
    </p>`
  return html`<main id="main" class="receive">
    <h1>Receive</h1>
    <p class="sr" role="status" aria-live="polite" data-testid="announce">${said}</p>
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
    <${QueuePanel} entries=${queue} onSendNow=${flush}
      onSettle=${async (e, changes) => {
        await settle(e, { ...changes, body: undefined })
        await flush()
      }}
      onDiscard=${async (e) => {
        await discard(e.seq)
        await refresh()
      }} />

    <${WhereItGoes} sites=${sites} location=${location} setLocation=${setLocation} errors=${err?.forField('lastActivity.location.packageLocation') ?? []} />

    ${
      !bulk &&
      item &&
      html`<form key=${item.key} class="decoded card" onSubmit=${save} aria-label="Package to save">
        <${DecodedFacts} item=${item} onCarrier=${(id) => setItem(withCarrier(item, id))} />
        ${
          item.unknownFormat
            ? html`<${UnknownFormat}
                onConfirm=${() => {
                  setItem(withCarrier(item, INTERNAL.carrierId))
                  setTimeout(() => recipientRef.current?.focus(), 0)
                }}
              />`
            : html`
      <${Combobox} label="Recipient" id="receive-recipient" value=${recipient} inputRef=${recipientRef}
        search=${searchRecipients} errors=${err?.forField('package.receiver') ?? []}
        noMatch=${noMatch} onText=${setTyped}
        onPick=${(o) => {
          setRecipient(o)
          if (o) setTimeout(() => saveRef.current?.focus(), 0)
        }} onEnterWithoutList=${() => saveRef.current?.focus()} />
      ${
        adding !== null &&
        html`<${AddContact}
          name=${adding}
          sites=${sites}
          onAdded=${(c) => {
            remember(c)
            setRecipient(c)
            setAdding(null)
            setSaid(`${c.label} added.`)
            setTimeout(() => saveRef.current?.focus(), 0)
          }}
          onCancel=${() => {
            setAdding(null)
            recipientRef.current?.focus()
          }}
        />`
      }
      <${Field} label="Photo (optional)" id="receive-photo" errors=${err?.forField('images') ?? []}>
        ${(a) => html`<input ...${a} ref=${photoRef} type="file" accept="image/*" capture="environment" />`}
      </${Field}>
      <div class="actions">
        <button type="submit" id="save-package" ref=${saveRef} disabled=${busy || adding !== null}>Save package</button>
        <button type="button" class="secondary" onClick=${() => {
          setItem(null)
          scanRef.current?.focus()
        }}>Cancel</button>
      </div>`
        }
      </form>`
    }

    ${
      bulk &&
      html`<${BulkList}
        batch=${batch}
        setBatch=${setBatch}
        busy=${busy}
        onSaveAll=${saveAll}
        search=${searchRecipients}
        backToScan=${() => scanRef.current?.focus()}
      />`
    }

    <section aria-labelledby="saved-title" class="saved">
      <h2 id="saved-title">Saved</h2>
      <ul>
        ${saved.map(
          (s) =>
            html`<li key=${s.packageId}>Saved <${Link} to=${`/packages/${s.packageId}`}>${s.trackingNumber}</${Link}>${s.recipient && ` for ${s.recipient}`}</li>`,
        )}
      </ul>
    </section>
  </main>`
}
