// Filing parcels by scanning shelf labels (issue 30.1), for any screen with a scan field (the Shelves
// screen; Receive can call it too). A scan that is a shelf label files the parcels scanned before it
// there (scan parcel → scan shelf is also how a parcel is moved); a shelf label with no parcel
// waiting starts a run: each parcel scanned next is filed there at once, until another shelf label
// or Done.
import { useRef, useState } from 'preact/hooks'
import { get, post, ApiError } from './api.js'
import { html } from './ui.js'

/** Whether a scan is a shelf label (SHELF- and six characters, as the labels print). */
export const isShelfCode = (text) => /^SHELF-[0-9A-Z]{6}$/i.test(text.trim())

const OUTCOME = {
  filed: 'filed on',
  already_there: 'already on',
  not_found: 'not found — not filed on',
  finished: 'already handed over — not filed on',
  refused: 'refused — not filed on',
}

/**
 * The desk's filing state and its actions. `scan(text)` takes any scan: a shelf label or a parcel
 * (tracking number or package id). `scanParcel(text)` is for a screen that already knows the scan is
 * a parcel (Receive, after saving it).
 */
export function useShelfDesk() {
  const [pending, setPending] = useState([])
  const [run, setRun] = useState(null)
  const [log, setLog] = useState([])
  const [error, setError] = useState(null)
  // What waits as of now, not as of the render a scan began in: a parcel scanned during the shelf's
  // look-up is filed with the others.
  const waiting = useRef(pending)
  waiting.current = pending

  const file = async (shelf, scans) => {
    const { results } = await post(`/api/v1/shelves/${encodeURIComponent(shelf.inboundSiteId)}/filings`, { scans })
    setLog((l) => [...results.map((r) => ({ ...r, shelf: shelf.name })), ...l].slice(0, 50))
    return results
  }
  const failed = (err, code) =>
    setError(err instanceof ApiError && err.status === 404 && code ? `No shelf has the label ${code}.` : err.message)
  const guarded = (fn) => async (text) => {
    setError(null)
    try {
      return await fn(text.trim())
    } catch (err) {
      failed(err, isShelfCode(text) ? text.trim() : undefined)
    }
  }
  const lookUp = (code) => get(`/api/v1/shelves/codes/${encodeURIComponent(code)}`)
  const scanShelf = guarded(async (code) => {
    const shelf = await lookUp(code)
    const scans = waiting.current
    if (scans.length > 0) {
      // Only those filed leave the list: one scanned during the request waits for the next label. A
      // refused request keeps them all waiting; a refused scan shows why in the log.
      await file(shelf, scans)
      setPending((p) => p.filter((x) => !scans.includes(x)))
      setRun(null)
    } else setRun(shelf)
  })
  const scanParcel = guarded(async (text) => {
    if (!text) return
    if (run) await file(run, [text])
    else setPending((p) => (p.includes(text) ? p : [...p, text]))
  })
  return {
    pending,
    run,
    log,
    error,
    scanShelf,
    scanParcel,
    scan: (text) => (isShelfCode(text) ? scanShelf(text) : scanParcel(text)),
    done: () => {
      setRun(null)
      setPending([])
    },
    // For a screen that keeps its own parcels (Receive files outbox entries: receive-shelf.js).
    lookUp,
    file,
    failed,
    setRun,
    setError,
  }
}

/** What the desk holds now and what the last scans did, read out as it changes. */
export function ShelfDeskStatus({ desk }) {
  return html`<div class="shelf-desk">
    <p role="status" aria-live="polite" data-testid="shelf-state">
      ${
        desk.run
          ? `Filing on ${desk.run.name}: scan parcels, or another shelf label.`
          : desk.pending.length > 0
            ? `${desk.pending.length} parcel${desk.pending.length === 1 ? '' : 's'} waiting: scan a shelf label to file ${desk.pending.length === 1 ? 'it' : 'them'}.`
            : 'Scan a parcel then a shelf label, or a shelf label then a run of parcels.'
      }
    </p>
    ${desk.error && html`<p class="field-error" role="alert">${desk.error}</p>`}
    ${
      desk.pending.length > 0 &&
      html`<ul class="pending" aria-label="Waiting for a shelf">
        ${desk.pending.map((p) => html`<li>${p}</li>`)}
      </ul>`
    }
    ${
      desk.log.length > 0 &&
      html`<ol class="shelf-log" aria-label="Filed" data-testid="shelf-log">
        ${desk.log.map(
          (r) =>
            html`<li class=${r.outcome === 'filed' || r.outcome === 'already_there' ? 'ok' : 'problem'}>
              ${logLine(r)}
            </li>`,
        )}
      </ol>`
    }
  </div>`
}

/**
 * One filed scan as a sentence. Built as one string: in a template, htm drops the whitespace of a
 * line break between two values, and the log read "filed onShelf A".
 */
export const logLine = (r) =>
  `${r.trackingNumber ?? r.scan} ${OUTCOME[r.outcome] ?? r.outcome} ${r.shelf}${r.errors?.length ? `: ${r.errors.map((e) => e.description).join(' ')}` : ''}`

/** A scan field as a keyboard-wedge scanner uses it: it types, then Enter; the field empties and keeps the focus. */
export function ScanField({ id, label, onScan, hint }) {
  const [text, setText] = useState('')
  const input = useRef(null)
  const submit = async (e) => {
    e.preventDefault()
    const value = text.trim()
    setText('')
    if (value) await onScan(value)
    input.current?.focus()
  }
  return html`<form class="scan-row" onSubmit=${submit}>
    <label for=${id}>${label}</label>
    <input
      id=${id}
      ref=${input}
      value=${text}
      autocomplete="off"
      autofocus
      data-main-control
      aria-describedby=${hint ? `${id}-hint` : undefined}
      onInput=${(e) => setText(e.target.value)}
    />
    <button type="submit">Enter</button>
    ${hint && html`<small id=${`${id}-hint`} class="hint">${hint}</small>`}
  </form>`
}
