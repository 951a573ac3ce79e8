// Receive's first row: the Scan field (a keyboard wedge types the label and Enter), bulk mode, and
// the two other ways in: the camera scanning barcodes live, and a photo of the whole label
// (receive-label.js), whose file input lives here.
import { html, Field } from '../ui.js'

export function ScanRow({ scanRef, scan, setScan, onScan, errors, bulk, onBulk, cam, labelPhoto, busy }) {
  const { camera, videoRef, openCamera } = cam
  return html`<form class="scan-row" onSubmit=${onScan}>
      <${Field} label="Scan" id="receive-scan" errors=${errors}
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
        <label class="check"><input type="checkbox" checked=${bulk} onChange=${(e) => onBulk(e.target.checked)} /> Bulk mode</label>
        ${
          camera
            ? html`<button type="button" class="secondary" onClick=${() => camera.abort()}>Stop camera</button>`
            : html`<button type="button" class="secondary" onClick=${openCamera}>Scan with camera</button>`
        }
        <button type="button" class="secondary" onClick=${labelPhoto.choose} disabled=${busy}>Photo of label</button>
        ${labelPhoto.input}
      </div>
    </form>
    ${camera && html`<video ref=${videoRef} class="camera" muted playsinline aria-label="Camera preview"></video>`}`
}
