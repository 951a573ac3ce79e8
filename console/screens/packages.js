// Packages: search (tracking number starts/ends, recipient), filters, pages, CSV export.
import { useEffect, useState } from 'preact/hooks'
import { call, ApiError, qs } from '../api.js'
import { html, Field, Alert, Link, fmtTime, siteName } from '../ui.js'
import { loadSites } from '../data.js'
import { PACKAGE_STATUSES, UNDELIVERED } from '../statuses.js'

/** The status filter: waiting (the search's UNDELIVERED), then every status the server knows. */
const STATUSES = [UNDELIVERED, ...PACKAGE_STATUSES]
const MODES = [
  ['ends', 'Tracking number ends with'],
  ['starts', 'Tracking number starts with'],
  ['receiver', 'Recipient name contains'],
  ['pickupCode', 'Pickup code'],
]
/** Columns the CSV export offers: the API's field → the header the clerk sees. */
export const COLUMNS = [
  ['trackingNumber', 'Tracking number'],
  ['carrier.name', 'Carrier'],
  ['receiver.name', 'Recipient'],
  ['currentStatus', 'Status'],
  ['currentLocation.locationHierarchy', 'Site'],
  ['packageLocation', 'Shelf'],
  ['pickupCode', 'Pickup code'],
  ['insertTimestamp', 'Received'],
  ['deliveryTime', 'Handed over'],
  ['givenTo.name', 'Collected by'],
  ['receiveClerk', 'Received by'],
  ['deliveryClerk', 'Handed over by'],
]
const SIZE = 25

/** The request a search form stands for: a field search (GET) or the filtered list (POST search). */
export function searchRequest(f, page, size = SIZE) {
  const filters = { status: f.status, startDate: f.from, endDate: f.to, page, size }
  const text = f.text.trim()
  let search
  if (text && f.mode === 'receiver') search = `receiver.name:${text}`
  else if (text && f.mode === 'pickupCode') search = `pickupCode:${text.replace(/[\s-]/g, '')}`
  else if (text) search = `trackingNumber:${text.replace(/\s+/g, '')}`
  else if (f.carrier.trim()) search = `carrier.name:${f.carrier.trim()}`
  if (search)
    return {
      method: 'GET',
      path: `/api/v1/packages?${qs({ search, searchPosition: text && (f.mode === 'starts' || f.mode === 'ends') ? f.mode : undefined, location: f.site, ...filters })}`,
    }
  return { method: 'POST', path: `/api/v1/packages/search?${qs({ inboundSiteId: f.site, ...filters })}`, body: {} }
}

export function Packages() {
  const [form, setForm] = useState({
    text: '',
    mode: 'ends',
    status: UNDELIVERED,
    site: '',
    from: '',
    to: '',
    carrier: '',
  })
  const [page, setPage] = useState(1)
  const [result, setResult] = useState(null)
  const [error, setError] = useState(null)
  const [sites, setSites] = useState([])
  const [columns, setColumns] = useState(
    new Set(['trackingNumber', 'carrier.name', 'receiver.name', 'currentStatus', 'insertTimestamp']),
  )
  const set = (k) => (e) => setForm({ ...form, [k]: e.target.value })

  const run = async (p = 1) => {
    setError(null)
    try {
      const r = searchRequest(form, p)
      const res = await call(r.method, r.path, r.body)
      // A recipient search with a carrier filter too: the carrier narrows the page here.
      const carrier = form.carrier.trim().toLowerCase()
      const packages =
        form.text.trim() && carrier
          ? res.packages.filter((x) => (x.carrier?.name ?? '').toLowerCase().includes(carrier))
          : res.packages
      setResult({ packages, totalCount: res.totalCount })
      setPage(p)
    } catch (err) {
      setError(err)
    }
  }
  useEffect(() => {
    loadSites().then(setSites, () => {})
    void run(1)
  }, [])

  const exportCsv = async () => {
    setError(null)
    try {
      const r = searchRequest(form, undefined)
      const mapping = Object.fromEntries(COLUMNS.filter(([k]) => columns.has(k)))
      const path =
        r.method === 'POST'
          ? r.path.replace(/&?page=\d*|&?size=\d*/g, '')
          : `/api/v1/packages/search?${qs({ inboundSiteId: form.site, status: form.status, startDate: form.from, endDate: form.to })}`
      const text = await call('POST', path, mapping, { accept: 'text/csv' })
      const a = document.createElement('a')
      a.href = URL.createObjectURL(new Blob([text], { type: 'text/csv' }))
      a.download = 'packages.csv'
      document.body.append(a)
      a.click()
      a.remove()
    } catch (err) {
      setError(err)
    }
  }

  const err = error instanceof ApiError ? error : null
  const pages = result ? Math.max(1, Math.ceil(result.totalCount / SIZE)) : 1
  return html`<main id="main" class="packages">
    <h1>Packages</h1>
    <form class="filters" role="search" onSubmit=${(e) => {
      e.preventDefault()
      void run(1)
    }}>
      <${Field} label="Search packages" id="pk-search" errors=${err?.forField('search') ?? []}>
        ${(a) => html`<input ...${a} type="search" value=${form.text} onInput=${set('text')} />`}
      </${Field}>
      <${Field} label="Search in" id="pk-mode">
        ${(a) =>
          html`<select ...${a} value=${form.mode} onChange=${set('mode')}>
            ${MODES.map(([v, l]) => html`<option value=${v}>${l}</option>`)}
          </select>`}
      </${Field}>
      <${Field} label="Status" id="pk-status" errors=${err?.forField('status') ?? []}>
        ${(a) =>
          html`<select ...${a} value=${form.status} onChange=${set('status')}>
            <option value="">Any</option>
            ${STATUSES.map((s) => html`<option value=${s}>${s === UNDELIVERED ? 'Waiting (not handed over)' : s}</option>`)}
          </select>`}
      </${Field}>
      <${Field} label="Site" id="pk-site" errors=${err?.forField('location') ?? []}>
        ${(a) =>
          html`<select ...${a} value=${form.site} onChange=${set('site')}>
            <option value="">All sites</option>
            ${sites.map((s) => html`<option value=${s.inboundSiteId}>${siteName(s)}</option>`)}
          </select>`}
      </${Field}>
      <${Field} label="From" id="pk-from" errors=${err?.forField('startDate') ?? []}>
        ${(a) => html`<input ...${a} type="date" value=${form.from} onInput=${set('from')} />`}
      </${Field}>
      <${Field} label="To" id="pk-to" errors=${err?.forField('endDate') ?? []}>
        ${(a) => html`<input ...${a} type="date" value=${form.to} onInput=${set('to')} />`}
      </${Field}>
      <${Field} label="Carrier" id="pk-carrier">
        ${(a) => html`<input ...${a} value=${form.carrier} onInput=${set('carrier')} />`}
      </${Field}>
      <button type="submit">Search</button>
    </form>
    <${Alert} messages=${error ? (err ? err.unclaimed(['search', 'status', 'location', 'startDate', 'endDate']) : [error.message]) : []} />
    ${
      result &&
      html`<p role="status">${result.totalCount} package${result.totalCount === 1 ? '' : 's'}</p>
        <div class="table-wrap">
          <table>
            <thead>
              <tr>
                <th scope="col">Tracking number</th>
                <th scope="col">Carrier</th>
                <th scope="col">Recipient</th>
                <th scope="col">Status</th>
                <th scope="col">Site</th>
                <th scope="col">Received</th>
              </tr>
            </thead>
            <tbody>
              ${result.packages.map(
                (p) => html`<tr>
            <td><${Link} to=${`/packages/${p.packageId}`}>${p.trackingNumber}</${Link}></td>
            <td>${p.carrier?.name ?? ''}</td><td>${p.receiver?.name ?? ''}</td><td>${p.currentStatus}</td>
            <td>${siteName(p.currentLocation)} ${p.packageLocation ?? ''}</td><td>${fmtTime(p.insertTimestamp)}</td>
          </tr>`,
              )}
            </tbody>
          </table>
        </div>
        <nav class="pager" aria-label="Pages">
          <button type="button" class="secondary" disabled=${page <= 1} onClick=${() => run(page - 1)}>
            Previous page
          </button>
          <span>Page ${page} of ${pages}</span>
          <button type="button" class="secondary" disabled=${page >= pages} onClick=${() => run(page + 1)}>
            Next page
          </button>
        </nav>`
    }
    <details class="export">
      <summary>Export to CSV</summary>
      <fieldset><legend>Columns</legend>
        ${COLUMNS.map(
          ([k, l]) =>
            html`<label class="check"
              ><input
                type="checkbox"
                checked=${columns.has(k)}
                onChange=${(e) => {
                  const next = new Set(columns)
                  if (e.target.checked) next.add(k)
                  else next.delete(k)
                  setColumns(next)
                }}
              />
              ${l}</label
            >`,
        )}
      </fieldset>
      <button type="button" onClick=${exportCsv} disabled=${columns.size === 0}>Download CSV</button>
    </details>
  </main>`
}
