// Dashboard: what waits now per site, today's receipts and hand-overs, the oldest waiting parcels.
import { useEffect, useState } from 'preact/hooks'
import { get, post, qs } from '../api.js'
import { html, Alert, Link, Pager, fmtTime, siteName } from '../ui.js'
import { loadSites } from '../data.js'
import { HANDED_OVER_FILTER, WAITING, statusFilter } from '../statuses.js'
import { ExceptionCounts } from './exceptions.js'

const count = async (params) => (await post(`/api/v1/packages/search?${qs({ ...params, size: 1 })}`, {})).totalCount

function startOfToday() {
  const d = new Date()
  d.setHours(0, 0, 0, 0)
  return d.toISOString()
}

const PAGE = 25

/**
 * Every parcel waiting longer than `days`, oldest first, a page at a time. Waiting parcels are read in
 * arrival order, so the ones past the cutoff are exactly the first of the list: a page ends the list
 * once it reaches a parcel that arrived after the cutoff.
 */
function Unclaimed({ days }) {
  const [page, setPage] = useState(1)
  const [result, setResult] = useState(null)
  const [error, setError] = useState(null)
  useEffect(() => setPage(1), [days])
  useEffect(() => {
    const params = { status: statusFilter(WAITING), size: PAGE, page, sort: 'insertTimestamp,ASC' }
    post(`/api/v1/packages/search?${qs(params)}`, {}).then(setResult, setError)
  }, [page])
  if (error) return html`<${Alert} messages=${[error.message]} />`
  if (!result) return null
  const cutoff = Date.now() - days * 86_400_000
  const rows = result.packages.filter((p) => Date.parse(p.insertTimestamp) < cutoff)
  const more = rows.length === result.packages.length && result.totalCount > page * PAGE
  return html`<ul aria-live="polite">
      ${rows.map(
        (p) =>
          html`<li><${Link} to=${`/packages/${p.packageId}`}>${p.trackingNumber}</${Link}> · ${p.receiver?.name ?? ''} · ${siteName(p.currentLocation)} · since ${fmtTime(p.insertTimestamp)}</li>`,
      )}
    </ul>
    ${rows.length === 0 && html`<p>None.</p>`}
    <${Pager} label="Pages of unclaimed parcels" page=${page} more=${more} onPage=${setPage} />`
}

/**
 * Recipients who left (deactivated, moved out) while parcels waited for them: each needs a decision
 * at the desk (forward, return). Their pickup code keeps working until then.
 */
function Departures() {
  const [list, setList] = useState(null)
  const [error, setError] = useState(null)
  useEffect(() => {
    get('/api/v1/directory/departures').then((r) => setList(r.departures), setError)
  }, [])
  if (error) return html`<${Alert} messages=${[error.message]} />`
  if (!list || list.length === 0) return null
  return html`<section class="card exceptions" aria-labelledby="departures">
    <h2 id="departures">Recipients who left with parcels waiting</h2>
    <ul>
      ${list.map(
        (d) =>
          html`<li>
            <strong>${d.name}</strong> ·
            ${d.reason === 'moved-out' ? `moved out ${d.moveOutDate ?? ''}` : 'deactivated'} ·
            ${d.packages.map(
              (p, i) =>
                html`${i > 0 ? ', ' : ''}<${Link} to=${`/packages/${p.packageId}`}>${p.trackingNumber}</${Link}>`,
            )}
          </li>`,
      )}
    </ul>
  </section>`
}

/** Every parcel that needs something done, counted per kind (issue 30.3): each count opens its list. */
function Exceptions({ days }) {
  const [counts, setCounts] = useState(null)
  const [error, setError] = useState(null)
  useEffect(() => {
    get(`/api/v1/exceptions/counts?${qs({ unclaimedDays: days })}`).then(setCounts, setError)
  }, [days])
  if (error) return html`<${Alert} messages=${[error.message]} />`
  if (!counts) return null
  return html`<section class="card" aria-labelledby="exceptions">
    <h2 id="exceptions"><${Link} to="/exceptions">Exceptions</${Link}>: ${counts.totalCount}</h2>
    <${ExceptionCounts} counts=${counts.counts} />
  </section>`
}

export function Dashboard() {
  const [days, setDays] = useState(3)
  const [data, setData] = useState(null)
  const [error, setError] = useState(null)
  useEffect(() => {
    const today = startOfToday()
    ;(async () => {
      const sites = (await loadSites()).filter((s) => s.type === 'site')
      // One after another: the subscription's searches are bounded (2 at once), and other clerks search too.
      const waiting = await count({ status: statusFilter(WAITING) })
      const perSite = []
      for (const s of sites)
        perSite.push([s, await count({ status: statusFilter(WAITING), inboundSiteId: s.inboundSiteId })])
      // Created today: the newest first, counted until the first one from before today.
      const received = await post(
        `/api/v1/packages/search?${qs({ startDate: today, size: 200, sort: 'insertTimestamp,DESC' })}`,
        {},
      )
      const handed = await count({ status: HANDED_OVER_FILTER, startDate: today })
      const receivedToday = received.packages.filter((p) => p.insertTimestamp >= today).length
      setData({ waiting, perSite, receivedToday, more: received.totalCount > 200, handed })
    })().catch(setError)
  }, [])
  return html`<main id="main" class="dashboard">
    <h1>Dashboard</h1>
    <${Alert} messages=${error ? [error.message] : []} />
    <${Exceptions} days=${days} />
    <${Departures} />
    ${
      data &&
      html`<div class="tiles">
          <section class="tile" aria-labelledby="t-wait">
            <h2 id="t-wait">Waiting now</h2>
            <p class="big">${data.waiting}</p>
          </section>
          <section class="tile" aria-labelledby="t-rec">
            <h2 id="t-rec">Received today</h2>
            <p class="big">${data.receivedToday}${data.more ? '+' : ''}</p>
          </section>
          <section class="tile" aria-labelledby="t-hand">
            <h2 id="t-hand">Handed over today</h2>
            <p class="big">${data.handed}</p>
          </section>
        </div>
        <section class="card" aria-labelledby="per-site">
          <h2 id="per-site">Waiting per site</h2>
          <table>
            <thead>
              <tr>
                <th scope="col">Site</th>
                <th scope="col">Waiting</th>
              </tr>
            </thead>
            <tbody>
              ${data.perSite.map(
                ([s, n]) =>
                  html`<tr>
                    <td>${s.name}</td>
                    <td>${n}</td>
                  </tr>`,
              )}
            </tbody>
          </table>
        </section>
        <section class="card" aria-labelledby="oldest">
          <h2 id="oldest">Oldest waiting parcels</h2>
          <label class="inline"
            >Unclaimed for more than
            <input
              type="number"
              min="0"
              max="365"
              class="narrow"
              value=${days}
              onInput=${(e) => setDays(Number(e.target.value) || 0)}
            />
            days</label
          >
          <${Unclaimed} days=${days} />
        </section>`
    }
  </main>`
}
