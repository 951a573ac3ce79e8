// Receive: scan (keyboard wedge: text + Enter, or the camera), check the decode, pick the
// recipient, save, and the cursor is back in "Scan" for the next parcel. Every save goes through
// the outbox (../outbox.js): written in the browser first, then sent, so a network drop costs no
// scan. One parcel at a time is receive-single.js; bulk mode keeps a list (receive-bulk.js).
import { useEffect, useRef, useState } from 'preact/hooks'
import { patch, post, ApiError, unreachable } from '../api.js'
import { html, Field, Alert, newId } from '../ui.js'
import { discard, enqueue, queued, sendQueued, settle } from '../outbox.js'
import { packageBody, undecoded, UNKNOWN_FORMAT } from '../receiving.js'
import { searchRecipients } from '../recipients.js'
import { BulkList } from './receive-bulk.js'
import { QueuePanel, SavedList } from './receive-queue.js'
import { SingleItem } from './receive-single.js'
import { useCameraScan } from './receive-camera.js'
import { WhereItGoes, decodeScan, describeScan } from './receive-item.js'
import { blankValues, customFieldsBody, loadCustomFields, refuseMissing } from './receive-fields.js'
import { loadSites, rememberedLocation, rememberLocation, uploadImage } from '../data.js'
import { LabelRead, asRecipient, openScanIssue, scanIssueOf, useLabelPhoto } from './receive-label.js'

const FIELDS = ['package.trackingNumber', 'package.receiver', 'package.customFields', 'lastActivity.location', 'images']
/** How often a queue that is waiting tries the server again (and at once when the browser is back online). */
const RETRY_MS = 5_000
const mustChoose = (it) => `${it.trackingNumber}: ${it.finished.text} Open it, or receive it again as a new arrival.`

export function Receive({ user }) {
  const owner = user?.userId ?? user?.email ?? 'clerk'
  const scanRef = useRef(null)
  const refs = { recipient: useRef(null), save: useRef(null), photo: useRef(null) }
  const [scan, setScan] = useState('')
  const [item, setItem] = useState(null)
  const [recipient, setRecipient] = useState(null)
  const [typed, setTyped] = useState('')
  const [adding, setAdding] = useState(null)
  const [location, setLocation] = useState(rememberedLocation())
  const [sites, setSites] = useState([])
  const [defs, setDefs] = useState([])
  const [values, setValues] = useState({})
  const [fieldErrors, setFieldErrors] = useState({})
  const [error, setError] = useState(null)
  const [saved, setSaved] = useState([])
  const [queue, setQueue] = useState([])
  const [said, say] = useState('')
  const [busy, setBusy] = useState(false)
  const [bulk, setBulk] = useState(false)
  const [batch, setBatch] = useState([])
  const { camera, videoRef, openCamera } = useCameraScan({ scanRef, setScan, setError })
  // A photo of the label: its barcode is the scan, its printed name the recipient (receive-label.js).
  const labelPhoto = useLabelPhoto({
    location,
    setError,
    setBusy,
    say,
    onItem: (decoded, chosen) => {
      setItem({ ...decoded, key: newId('scan') })
      setRecipient(chosen ?? decoded.receiver)
      setTyped('')
      setAdding(null)
      fresh()
      setTimeout(() => (chosen || decoded.receiver ? refs.save.current : refs.recipient.current)?.focus(), 0)
    },
    onNoBarcode: () => {
      setItem(null)
      focusScan()
    },
  })
  const focusScan = () => setTimeout(() => scanRef.current?.focus(), 0)
  const fresh = () => {
    setValues(blankValues(defs))
    setFieldErrors({})
  }

  const refresh = async () => setQueue(await queued(owner))
  const onSaved = (res, entry) => {
    const tn = res.trackingNumber ?? entry.trackingNumber
    setSaved((s) =>
      [{ packageId: res.packageId, trackingNumber: tn, recipient: entry.recipient?.label ?? '' }, ...s].slice(0, 20),
    )
    say(`Saved ${tn}.`)
    openScanIssue(res, entry).then(
      () =>
        entry.scanIssue && !entry.recipient && say(`Saved ${tn}; it waits in the scan-issues queue for its recipient.`),
      (err) => setError(new Error(`Saved ${tn}, but it could not be put in the scan-issues queue: ${err.message}`)),
    )
  }
  const flush = async () => {
    await sendQueued(owner, onSaved).catch(() => false)
    await refresh()
  }

  useEffect(() => {
    loadSites().then(setSites, (e) => setError(e))
    loadCustomFields().then((d) => {
      setDefs(d)
      setValues(blankValues(d))
    }, setError)
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

  const onScan = async (e) => {
    e.preventDefault()
    const raw = scan
    // The field is emptied at once: the next scan replaces this one, it never appends to it.
    setScan('')
    // A label photo without a barcode waits for this scan; any other photo belonged to the last parcel.
    if (labelPhoto.labelRead?.raw) labelPhoto.setLabelRead(null)
    if (!raw.trim()) return
    setError(null)
    setBusy(true)
    let decoded
    try {
      decoded = await decodeScan(raw)
    } catch (err) {
      if (!unreachable(err)) {
        setError(err)
        say(err.message)
        setItem(null)
        setBusy(false)
        return focusScan()
      }
      decoded = undecoded(raw)
    }
    setBusy(false)
    say(describeScan(decoded))
    if (bulk) {
      setBatch((b) => [...b, { key: newId('b'), ...decoded }])
      return focusScan()
    }
    // Each scan is a new form (its own Recipient box and fields): nothing typed for the last parcel carries over.
    setItem({ ...decoded, key: newId('scan') })
    setRecipient(decoded.receiver)
    setTyped('')
    setAdding(null)
    fresh()
    // Not a carrier's number, or a number finished with: the focus stays in Scan, so the next scan's Enter never confirms it.
    if (decoded.unknownFormat || decoded.finished) return focusScan()
    // The next key the clerk presses: Enter to save when the label named the recipient, else the name.
    setTimeout(() => (decoded.receiver ? refs.save.current : refs.recipient.current)?.focus(), 0)
  }

  /** "Receive again as a new arrival": the earlier package, if not archived yet, is archived first (it holds the number). */
  const again = async (it, update) => {
    setError(null)
    try {
      if (it.finished.needsArchive) await patch(`/api/v1/packages/${it.finished.packageId}/archive`, { archived: true })
      update({ ...it, again: true })
      say(`${it.trackingNumber}: receiving it again as a new arrival.`)
    } catch (err) {
      setError(err)
    }
  }

  /** The console's own check of the required custom fields (the server's is the same): false when one is empty. */
  const requiredGiven = (given, setErrors, prefix) => {
    const missing = refuseMissing(defs, given, prefix)
    setErrors(missing)
    if (Object.keys(missing).length) setError(new Error(`Required: ${Object.values(missing).join(' ')}`))
    return Object.keys(missing).length === 0
  }

  const save = async (e) => {
    e?.preventDefault()
    if (!item || adding) return
    if (item.unknownFormat) return setError(new Error(UNKNOWN_FORMAT))
    if (item.finished && !item.again) return setError(new Error(mustChoose(item)))
    if (typed.trim() && !recipient) {
      setError(new Error(`No match for "${typed.trim()}": pick a recipient from the list or add the contact.`))
      return refs.recipient.current?.focus()
    }
    if (!requiredGiven(values, setFieldErrors, 'receive-cf')) return
    setBusy(true)
    setError(null)
    try {
      const photo = refs.photo.current?.files?.[0]
      const customFields = customFieldsBody(defs, values)
      const body = item.offline ? undefined : packageBody(item, recipient, location, customFields)
      const read = labelPhoto.labelRead
      if (body && read) body.images = [{ imageLevel: 'ASSET', imageType: 'LABEL', tempURL: read.image.tempURL }]
      if (photo && body) {
        const image = await uploadImage(post, photo)
        body.images = [...(body.images ?? []), { imageLevel: 'ASSET', imageType: 'PHOTO', tempURL: image.tempURL }]
      }
      const { raw, trackingNumber, internal = false } = item
      const again = Boolean(item.again)
      const scanIssue = read && !recipient ? scanIssueOf(read, location) : undefined
      await enqueue(owner, { raw, trackingNumber, body, recipient, location, internal, again, customFields, scanIssue })
      labelPhoto.setLabelRead(null)
      setItem(null)
      setRecipient(null)
      setTyped('')
      fresh()
      if (refs.photo.current) refs.photo.current.value = ''
      focusScan()
      await refresh()
      void flush()
    } catch (err) {
      setError(err)
    } finally {
      setBusy(false)
    }
  }

  const [batchValues, setBatchValues] = useState({})
  const [batchErrors, setBatchErrors] = useState({})
  const saveAll = async () => {
    const given = { ...blankValues(defs), ...batchValues }
    if (!requiredGiven(given, setBatchErrors, 'bulk-cf')) return
    setBusy(true)
    setError(null)
    const left = []
    const customFields = customFieldsBody(defs, given)
    for (const b of batch) {
      if (b.unknownFormat || (b.finished && !b.again)) {
        left.push({ ...b, error: b.unknownFormat ? UNKNOWN_FORMAT : mustChoose(b) })
        continue
      }
      const body = b.offline ? undefined : packageBody(b, b.receiver, location, customFields)
      const { raw, trackingNumber, receiver: recipient, internal = false } = b
      const again = Boolean(b.again)
      await enqueue(owner, { raw, trackingNumber, body, recipient, location, internal, again, customFields })
    }
    // Sent before the list empties: "Saved" is then what the server holds (or the queue says why not).
    await flush()
    setBatch(left)
    setBusy(false)
    focusScan()
  }

  const err = error instanceof ApiError ? error : null
  const single = { item, setItem, recipient, setRecipient, adding, setAdding, setTyped, sites, say }
  Object.assign(single, { defs, values, setValues, fieldErrors })
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
        <button type="button" class="secondary" onClick=${labelPhoto.choose} disabled=${busy}>Photo of label</button>
        ${labelPhoto.input}
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
      labelPhoto.labelRead &&
      html`<${LabelRead}
        read=${labelPhoto.labelRead}
        chosen=${recipient}
        onRetake=${labelPhoto.choose}
        onPick=${(s) => {
          setRecipient(asRecipient(s))
          say(`Recipient: ${s.name}.`)
          setTimeout(() => refs.save.current?.focus(), 0)
        }}
      />`
    }
    ${
      !bulk &&
      item &&
      html`<${SingleItem}
        s=${single}
        refs=${refs}
        err=${err}
        busy=${busy}
        onSave=${save}
        onAgain=${() =>
          again(item, (it) => {
            setItem(it)
            setTimeout(() => (recipient ? refs.save.current : refs.recipient.current)?.focus(), 0)
          })}
        onCancel=${() => {
          setItem(null)
          labelPhoto.setLabelRead(null)
          scanRef.current?.focus()
        }}
      />`
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
        onAgain=${(b) => again(b, (it) => setBatch((rows) => rows.map((r) => (r.key === b.key ? { ...it, error: undefined } : r))))}
        fields=${{
          defs,
          values: { ...blankValues(defs), ...batchValues },
          setValues: setBatchValues,
          errors: batchErrors,
          serverErrors: err?.forField('package.customFields') ?? [],
        }}
      />`
    }

    <${SavedList} saved=${saved} />
  </main>`
}
