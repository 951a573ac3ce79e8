// Shelf labels (issue 30.1): every shelf with its code and links to its label (PDF in two stock
// sizes, ZPL for thermal printers); an admin makes a storage site of the tree a shelf here.
import { useEffect, useState } from 'preact/hooks'
import { apiUrl, get, put } from '../api.js'
import { html, Alert, Field, siteName } from '../ui.js'
import { loadSites } from '../data.js'

const KINDS = [
  ['shelf', 'Shelf'],
  ['bin', 'Bin'],
  ['cage', 'Cage'],
  ['locker_bank', 'Locker bank'],
]
const labelUrl = (params) => apiUrl(`/api/v1/shelves/labels?${new URLSearchParams(params)}`)

function LabelLinks({ siteId, what }) {
  const base = siteId ? [['inboundSiteId', siteId]] : []
  return html`<span class="label-links">
    <a href=${labelUrl([...base, ['size', '4x6']])} target="_blank">PDF 4×6 in<span class="sr"> ${what}</span></a>
    ${' · '}<a href=${labelUrl([...base, ['size', '2.25x1.25']])} target="_blank"
      >PDF 2.25×1.25 in<span class="sr"> ${what}</span></a
    >
    ${' · '}<a href=${labelUrl([...base, ['format', 'zpl'], ['size', '4x6']])} target="_blank"
      >ZPL<span class="sr"> ${what}</span></a
    >
  </span>`
}

export function ShelfLabels({ user }) {
  const [shelves, setShelves] = useState(null)
  const [sites, setSites] = useState([])
  const [pick, setPick] = useState({ siteId: '', kind: 'shelf' })
  const [error, setError] = useState(null)
  const load = async () => {
    try {
      setShelves((await get('/api/v1/shelves')).shelves)
    } catch (err) {
      setError(err.message)
    }
  }
  useEffect(() => {
    void load()
    loadSites().then(setSites, () => {})
  }, [])
  const make = async (e) => {
    e.preventDefault()
    setError(null)
    try {
      await put(`/api/v1/shelves/${encodeURIComponent(pick.siteId)}`, { kind: pick.kind })
      setPick({ siteId: '', kind: pick.kind })
      await load()
    } catch (err) {
      setError(err.message)
    }
  }
  const taken = new Set((shelves ?? []).map((s) => s.inboundSiteId))
  const candidates = sites.filter((s) => s.type !== 'site' && !taken.has(s.inboundSiteId))
  return html`<section aria-labelledby="labels-title">
    <h2 id="labels-title">Labels</h2>
    <${Alert} messages=${error ? [error] : []} />
    ${shelves?.length === 0 && html`<p>No shelf has a label yet.</p>`}
    ${
      shelves?.length > 0 &&
      html`<p>All shelves: <${LabelLinks} what="for every shelf" /></p>
        <div class="table-wrap">
          <table data-testid="shelf-list">
            <thead>
              <tr>
                <th scope="col">Shelf</th>
                <th scope="col">Kind</th>
                <th scope="col">Code</th>
                <th scope="col">Label</th>
              </tr>
            </thead>
            <tbody>
              ${shelves.map(
                (s) =>
                  html`<tr>
                    <td>${siteName(s)}</td>
                    <td>${KINDS.find(([k]) => k === s.kind)?.[1] ?? s.kind}</td>
                    <td><code>${s.code}</code></td>
                    <td><${LabelLinks} siteId=${s.inboundSiteId} what=${`for ${s.name}`} /></td>
                  </tr>`,
              )}
            </tbody>
          </table>
        </div>`
    }
    ${
      user?.role === 'admin' &&
      html`<form class="card" onSubmit=${make} aria-labelledby="make-title">
      <h3 id="make-title">Give a site a shelf label</h3>
      <${Field} label="Site" id="make-shelf-site">
        ${(a) =>
          html`<select ...${a} value=${pick.siteId} onChange=${(e) => setPick({ ...pick, siteId: e.target.value })}>
            <option value="">Choose a site…</option>
            ${candidates.map((s) => html`<option value=${s.inboundSiteId}>${siteName(s)}</option>`)}
          </select>`}
      </${Field}>
      <${Field} label="Kind" id="make-shelf-kind">
        ${(a) =>
          html`<select ...${a} value=${pick.kind} onChange=${(e) => setPick({ ...pick, kind: e.target.value })}>
            ${KINDS.map(([k, label]) => html`<option value=${k}>${label}</option>`)}
          </select>`}
      </${Field}>
      <button type="submit" disabled=${!pick.siteId}>Make label</button>
    </form>`
    }
  </section>`
}
