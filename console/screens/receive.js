// Receive: scan (keyboard wedge: text + Enter, or the camera), check the decode, pick the
// recipient, save, and the cursor is back in "Scan" for the next parcel. Every save goes through
// the outbox (../outbox.js): written in the browser first, then sent, so a network drop costs no
// scan (its sending: receive-outbox.js). One parcel at a time is receive-single.js (its form's state:
// receive-form.js); bulk mode keeps a list (receive-bulk.js). A shelf label scanned here files the
// saved parcels on that shelf (receive-shelf.js).
import { useEffect, useRef, useState } from 'preact/hooks'
import { patch, ApiError, unreachable } from '../api.js'
import { html, Alert, newId } from '../ui.js'
import { discard, settle } from '../outbox.js'
import { undecoded, UNKNOWN_FORMAT } from '../receiving.js'
import { searchRecipients } from '../recipients.js'
import { BulkList, enqueueBatch, mustChoose } from './receive-bulk.js'
import { QueuePanel, SavedList } from './receive-queue.js'
import { SingleItem } from './receive-single.js'
import { useCameraScan } from './receive-camera.js'
import { ScanRow } from './receive-scan-row.js'
import { WhereItGoes, decodeScan, describeScan } from './receive-item.js'
import { blankValues, customFieldsBody, loadCustomFields, refuseMissing } from './receive-fields.js'
import { loadSites, rememberedLocation, rememberLocation } from '../data.js'
import { LabelRead, asRecipient, useLabelPhoto } from './receive-label.js'
import { useReceiveOutbox } from './receive-outbox.js'
import { useParcelForm } from './receive-form.js'
import { enqueueParcel } from './receive-save.js'
import { isShelfCode, ReceiveShelf, useReceiveShelf } from './receive-shelf.js'

const FIELDS = ['package.trackingNumber', 'package.receiver', 'package.customFields', 'lastActivity.location', 'images']

export function Receive({ user }) {
  const owner = user?.userId ?? user?.email ?? 'clerk'
  const scanRef = useRef(null)
  const refs = { recipient: useRef(null), save: useRef(null), photo: useRef(null) }
  const [scan, setScan] = useState('')
  const [location, setLocation] = useState(rememberedLocation())
  const [sites, setSites] = useState([])
  const [defs, setDefs] = useState([])
  const form = useParcelForm(defs)
  const { item, setItem, recipient, setRecipient, typed, adding, values, fresh } = form
  const [error, setError] = useState(null)
  const [said, say] = useState('')
  const [busy, setBusy] = useState(false)
  const [bulk, setBulk] = useState(false)
  const [batch, setBatch] = useState([])
  const shelf = useReceiveShelf({ say })
  const { saved, queue, refresh, flush } = useReceiveOutbox({ owner, say, setError, afterSave: shelf.afterSave })
  const cam = useCameraScan({ scanRef, setScan, setError })
  // A photo of the label: its barcode is the scan, its printed name the recipient (receive-label.js).
  const labelPhoto = useLabelPhoto({
    location,
    setError,
    setBusy,
    say,
    onItem: (decoded, chosen) => {
      form.start(decoded, chosen ?? decoded.receiver)
      setTimeout(() => (chosen || decoded.receiver ? refs.save.current : refs.recipient.current)?.focus(), 0)
    },
    onNoBarcode: () => {
      setItem(null)
      focusScan()
    },
  })
  const focusScan = () => setTimeout(() => scanRef.current?.focus(), 0)

  useEffect(() => {
    loadSites().then(setSites, (e) => setError(e))
    loadCustomFields().then((d) => {
      setDefs(d)
      fresh(d)
    }, setError)
    scanRef.current?.focus()
  }, [])
  useEffect(() => rememberLocation(location), [location.inboundSiteId, location.packageLocation])

  const onScan = async (e) => {
    e.preventDefault()
    const raw = scan
    // The field is emptied at once: the next scan replaces this one, it never appends to it.
    setScan('')
    // A shelf label is no tracking number: it files the last save's parcels, or starts a run (receive-shelf.js).
    if (isShelfCode(raw)) {
      await shelf.scanShelf(raw)
      return focusScan()
    }
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
    form.start(decoded, decoded.receiver)
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
    if (!requiredGiven(values, form.setFieldErrors, 'receive-cf')) return
    setBusy(true)
    setError(null)
    const written = shelf.saving()
    try {
      const entry = await enqueueParcel(owner, {
        item,
        recipient,
        location,
        customFields: customFieldsBody(defs, values),
        labelRead: labelPhoto.labelRead,
        photo: refs.photo.current?.files?.[0],
      })
      written([entry])
      labelPhoto.setLabelRead(null)
      form.clear()
      if (refs.photo.current) refs.photo.current.value = ''
      focusScan()
      await refresh()
      void flush()
    } catch (err) {
      written([])
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
    let left
    const written = shelf.saving()
    let entries = []
    try {
      ;({ left, entries } = await enqueueBatch(owner, batch, location, customFieldsBody(defs, given)))
    } finally {
      written(entries)
    }
    // Sent before the list empties: "Saved" is then what the server holds (or the queue says why not).
    await flush()
    setBatch(left)
    setBusy(false)
    focusScan()
  }

  const err = error instanceof ApiError ? error : null
  const single = { ...form, sites, say, defs }
  return html`<main id="main" class="receive">
    <h1>Receive</h1>
    <p class="sr" role="status" aria-live="polite" data-testid="announce">${said}</p>
    <${ScanRow}
      scanRef=${scanRef}
      scan=${scan}
      setScan=${setScan}
      onScan=${onScan}
      busy=${busy}
      errors=${err?.forField('trackingNumber', 'package.trackingNumber') ?? []}
      cam=${cam}
      labelPhoto=${labelPhoto}
      bulk=${bulk}
      onBulk=${(on) => {
        setBulk(on)
        setItem(null)
        scanRef.current?.focus()
      }}
    />
    <${Alert} messages=${error ? (err ? err.unclaimed(FIELDS) : [error.message]) : []} />
    <${ReceiveShelf} shelf=${shelf} backToScan=${focusScan} />
    <${QueuePanel}
      entries=${queue}
      onSendNow=${flush}
      onSettle=${async (e, changes) => {
        await settle(e, { ...changes, body: undefined })
        await flush()
      }}
      onDiscard=${async (e) => {
        await discard(e.seq)
        await refresh()
      }}
    />

    <${WhereItGoes}
      sites=${sites}
      location=${location}
      setLocation=${setLocation}
      errors=${err?.forField('lastActivity.location.packageLocation') ?? []}
    />

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
