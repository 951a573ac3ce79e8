// Shelves (issue 30.1): file parcels by scanning shelf labels (shelf-scan.js), audit a shelf
// (shelf-audit.js), print labels (shelf-labels.js).
import { html, Link } from '../ui.js'
import { useShelfDesk, ShelfDeskStatus, ScanField } from '../shelf-scan.js'
import { ShelfAudit } from './shelf-audit.js'
import { ShelfLabels } from './shelf-labels.js'

const TABS = [
  ['', 'File parcels'],
  ['audit', 'Audit a shelf'],
  ['labels', 'Labels'],
]

function FileParcels() {
  const desk = useShelfDesk()
  return html`<section aria-labelledby="file-title">
    <h2 id="file-title">File parcels</h2>
    <${ScanField}
      id="shelf-scan"
      label="Scan"
      onScan=${desk.scan}
      hint="A parcel's barcode or a shelf label (SHELF-…)."
    />
    <${ShelfDeskStatus} desk=${desk} />
    ${(desk.run || desk.pending.length > 0) && html`<button type="button" class="secondary" onClick=${desk.done}>Done</button>`}
  </section>`
}

export function Shelves({ tab = '', user }) {
  return html`<main id="main" class="shelves">
    <h1>Shelves</h1>
    <nav aria-label="Shelves">
      <ul class="tabs">
        ${TABS.map(
          ([to, label]) =>
            html`<li><${Link} to=${`/shelves${to ? `/${to}` : ''}`} aria-current=${tab === to ? 'page' : undefined}>${label}</${Link}></li>`,
        )}
      </ul>
    </nav>
    ${tab === 'audit' ? html`<${ShelfAudit} />` : tab === 'labels' ? html`<${ShelfLabels} user=${user} />` : html`<${FileParcels} />`}
  </main>`
}
