// A signature pad: pointer strokes on a canvas, read back as a PNG for the image API.
import { useEffect, useRef } from 'preact/hooks'
import { html } from './ui.js'

export function SignaturePad({ padRef, onChange, errors = [] }) {
  const canvas = useRef(null)
  const state = useRef({ drawing: false, empty: true })
  // The listeners are set once: they call the latest onChange the page gave, not the first one.
  const changed = useRef(onChange)
  changed.current = onChange
  useEffect(() => {
    const c = canvas.current
    const ctx = c.getContext('2d')
    ctx.lineWidth = 2.5
    ctx.lineCap = 'round'
    ctx.strokeStyle = '#111'
    const at = (e) => {
      const r = c.getBoundingClientRect()
      return [((e.clientX - r.left) * c.width) / r.width, ((e.clientY - r.top) * c.height) / r.height]
    }
    const down = (e) => {
      state.current.drawing = true
      c.setPointerCapture?.(e.pointerId)
      ctx.beginPath()
      ctx.moveTo(...at(e))
    }
    const move = (e) => {
      if (!state.current.drawing) return
      ctx.lineTo(...at(e))
      ctx.stroke()
      if (state.current.empty) {
        state.current.empty = false
        c.dataset.drawn = 'true'
        changed.current?.(false)
      }
    }
    const up = () => (state.current.drawing = false)
    // A signature kept across a sign-in (drafts.js): drawn back as it was, and no longer empty.
    const restore = (e) => {
      const img = new window.Image()
      img.onload = () => {
        ctx.drawImage(img, 0, 0, c.width, c.height)
        if (state.current.empty) {
          state.current.empty = false
          c.dataset.drawn = 'true'
          changed.current?.(false)
        }
      }
      img.src = e.detail
    }
    c.addEventListener('draft-restore', restore)
    c.addEventListener('pointerdown', down)
    c.addEventListener('pointermove', move)
    c.addEventListener('pointerup', up)
    c.addEventListener('pointerleave', up)
    padRef.current = {
      isEmpty: () => state.current.empty,
      clear: () => {
        ctx.clearRect(0, 0, c.width, c.height)
        state.current.empty = true
        c.dataset.drawn = 'false'
        changed.current?.(true)
      },
      toBlob: () => new Promise((resolve) => c.toBlob(resolve, 'image/png')),
    }
    return () => {
      c.removeEventListener('pointerdown', down)
      c.removeEventListener('pointermove', move)
      c.removeEventListener('pointerup', up)
      c.removeEventListener('pointerleave', up)
      c.removeEventListener('draft-restore', restore)
    }
  }, [])
  const invalid = errors.length > 0
  return html`<div class="signature">
    <span id="signature-label" class="label">Signature</span>
    <canvas
      ref=${canvas}
      id="signature-pad"
      data-draft
      width="600"
      height="200"
      role="img"
      aria-labelledby="signature-label"
      aria-describedby=${invalid ? 'signature-error' : undefined}
      class=${invalid ? 'pad invalid' : 'pad'}
    ></canvas>
    ${invalid && html`<p id="signature-error" class="field-error" role="alert">${errors.join(' ')}</p>`}
    <button type="button" class="secondary" onClick=${() => padRef.current?.clear()}>Clear signature</button>
  </div>`
}

const STRICTNESS = { off: 0, optional: 1, required: 2 }

/**
 * The proof a hand-over of these parcels needs: each parcel's site says (its own rule, else its
 * nearest ancestor's; at the top, required and no photo); the strictest rule of them all wins,
 * and a photo may replace the signature only where every site allows it.
 */
export function proofRule(parcels, sitesById) {
  let rule = 'off'
  let photo = parcels.length > 0
  for (const p of parcels) {
    const loc = p.currentLocation
    const chain = loc ? [loc.inboundSiteId, ...[...(loc.ancestorlist ?? [])].reverse()] : []
    const own = (key) => chain.map((id) => sitesById.get(id)?.[key]).find((v) => v !== undefined && v !== null)
    const r = own('signatureRule') ?? 'required'
    if (STRICTNESS[r] > STRICTNESS[rule]) rule = r
    if (own('photoProofAllowed') !== true) photo = false
  }
  return { rule: parcels.length ? rule : 'required', photo }
}
