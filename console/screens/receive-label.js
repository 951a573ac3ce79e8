// Receive's "Photo of label" (issue 27): the photo is uploaded, its barcodes and printed text read
// by the server (decode-image?read=text, offline OCR), and the recipient found in the directory.
// What was read is shown with the name highlighted, the suggestion with its confidence, a retake
// prompt when the text was hard to read, and the suggestions on the keys 1, 2 and 3.
import { useEffect, useRef, useState } from 'preact/hooks'
import { post } from '../api.js'
import { html } from '../ui.js'
import { uploadImage } from '../data.js'
import { decodeScan } from './receive-item.js'

const REASONS = {
  no_match: 'No contact matches the name on the label.',
  partial_match: 'The closest contact is not a sure match.',
  several_matches: 'Several contacts match the name on the label.',
  business: 'The label names a company and no person.',
}

/**
 * Uploads the photo and reads it: the raw text of its first barcode that decodes to a number (for
 * the Scan path), and the label answer. The photo is kept (its tempURL) to be saved with the package.
 */
export async function readLabelPhoto(file, siteId) {
  const image = await uploadImage(post, file)
  const q = `read=text${siteId ? `&siteId=${encodeURIComponent(siteId)}` : ''}`
  const res = await post(
    `/api/v1/packages/tracking/decode-image?${q}`,
    { imageId: image.imageId },
    { timeoutMs: 60_000 },
  )
  const barcode = res.barcodes.find((b) => b.decoded?.package?.trackingNumber)
  const raw = barcode ? (barcode.isGS1 && barcode.aimId ? `${barcode.aimId}${barcode.text}` : barcode.text) : undefined
  return { image, raw, label: res.label }
}

/** A suggestion as Receive's recipient box takes it. */
export const asRecipient = (s) => ({
  id: s.contactId,
  label: s.name,
  detail: [s.company, s.unit].filter(Boolean).join(' · '),
})

const percent = (score) => `${Math.round(score * 100)}%`

/** The label as read, the match, and the one-key choices. */
export function LabelRead({ read, chosen, onPick, onRetake }) {
  const label = read.label
  const suggestions = label.recipient?.suggestions ?? []
  // 1, 2, 3 pick a suggestion from anywhere on the screen but a text field.
  useEffect(() => {
    const onKey = (e) => {
      if (e.ctrlKey || e.metaKey || e.altKey) return
      const tag = e.target?.tagName
      if (tag === 'INPUT' || tag === 'TEXTAREA' || tag === 'SELECT') return
      const n = Number(e.key)
      if (n >= 1 && n <= suggestions.length) {
        e.preventDefault()
        onPick(suggestions[n - 1])
      }
    }
    document.addEventListener('keydown', onKey)
    return () => document.removeEventListener('keydown', onKey)
  }, [suggestions])
  const nameLine = label.shipTo?.nameLine
  return html`<section class="label-read card" aria-label="Label as read">
    <h2>Label as read</h2>
    ${label.error && html`<p class="alert error" role="alert">${label.error}</p>`}
    ${
      label.retake &&
      html`<p class="alert warning" role="status" data-testid="retake">
        The label was hard to read${label.shipTo?.nameLine ? '' : ' and no name was found'}. Retake the photo, closer
        and flat, or pick the recipient below.
        <button type="button" class="secondary" onClick=${onRetake}>Retake photo</button>
      </p>`
    }
    <ul class="label-lines" data-testid="label-lines">
      ${label.lines.map((l, i) => html`<li key=${i}>${l.text === nameLine ? html`<mark>${l.text}</mark>` : l.text || '\u00a0'}</li>`)}
    </ul>
    ${
      label.recipient?.chosen
        ? html`<p data-testid="label-chosen">
            Recipient found: <strong>${label.recipient.chosen.name}</strong>, confidence
            ${percent(label.recipient.chosen.score)}.
          </p>`
        : label.recipient?.doubt &&
          html`<p data-testid="label-doubt">
            ${REASONS[label.recipient.doubt]} Saved without a recipient, the package goes to the scan-issues queue.
          </p>`
    }
    ${
      suggestions.length > 0 &&
      html`<ol class="suggestions" aria-label="Suggested recipients">
        ${suggestions.map(
          (s, i) =>
            html`<li key=${s.contactId}>
              <button
                type="button"
                class=${chosen?.id === s.contactId ? '' : 'secondary'}
                aria-pressed=${chosen?.id === s.contactId}
                aria-keyshortcuts=${String(i + 1)}
                onClick=${() => onPick(s)}
              >
                <kbd>${i + 1}</kbd> ${s.name}${s.unit ? ` · ${s.unit}` : ''} · ${percent(s.score)}
              </button>
            </li>`,
        )}
      </ol>`
    }
  </section>`
}

/**
 * The hidden file input behind "Photo of label" (camera on a phone, a file elsewhere) and what it
 * read. Hidden from assistive technology too: the button is the one control a screen reader finds.
 */
export function useLabelPhoto({ location, setError, setBusy, say, onItem, onNoBarcode }) {
  const inputRef = useRef(null)
  const [labelRead, setLabelRead] = useState(null)
  const choose = () => inputRef.current?.click()
  const onFile = async (e) => {
    const file = e.target.files?.[0]
    e.target.value = ''
    if (!file) return
    setError(null)
    setBusy(true)
    try {
      const read = await readLabelPhoto(file, location.inboundSiteId)
      setLabelRead(read)
      const r = read.label?.recipient
      say(
        r?.chosen
          ? `Label read: for ${r.chosen.name}, confidence ${percent(r.chosen.score)}.`
          : `Label read: ${r?.doubt ? REASONS[r.doubt] : 'no recipient found.'}${read.label?.retake ? ' Retake the photo.' : ''}`,
      )
      if (!read.raw) {
        setError(new Error('No barcode was read on the photo: scan or type the tracking number; the name read stays.'))
        return onNoBarcode()
      }
      const chosen = read.label?.recipient?.chosen
      onItem(await decodeScan(read.raw), chosen ? asRecipient(chosen) : null)
    } catch (err) {
      setError(err)
    } finally {
      setBusy(false)
    }
  }
  const input = html`<input
    ref=${inputRef}
    type="file"
    accept="image/*"
    capture="environment"
    class="sr"
    tabindex="-1"
    aria-hidden="true"
    aria-label="Photo of label"
    data-testid="label-photo-input"
    onChange=${onFile}
  />`
  return { labelRead, setLabelRead, choose, input }
}

/**
 * What a saved package's outbox entry keeps to put it in the scan-issues queue: the label as read.
 * Every photo-received package saved without a recipient goes there, also when the text named
 * nobody or could not be read at all (no_match): a clerk must still choose.
 */
export function scanIssueOf(read, location) {
  const label = read.label
  const shipTo = label?.shipTo
  return {
    read: {
      ...(shipTo?.nameLine ? { name: shipTo.nameLine } : {}),
      ...(shipTo?.company ? { company: shipTo.company } : {}),
      ...(shipTo?.unit ? { unit: shipTo.unit } : {}),
      lines: (shipTo?.lines ?? label?.lines.map((l) => l.text) ?? []).slice(0, 80),
      ...(label ? { confidence: label.confidence } : {}),
    },
    reason: label?.recipient?.doubt ?? 'no_match',
    imageId: read.image.imageId,
    ...(location.inboundSiteId ? { siteId: location.inboundSiteId } : {}),
  }
}

/** A package saved without a recipient from a doubtful label: into the queue, with the label as read. */
export async function openScanIssue(saved, entry) {
  if (!entry.scanIssue || entry.recipient) return
  const { reason, ...rest } = entry.scanIssue
  await post('/api/v1/scanissues', { packageId: saved.packageId, ...rest, ...(reason ? { reason } : {}) })
}
