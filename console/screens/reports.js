// Reports (issue 30.4): the month on one screen — parcels received and handed over, how long they
// waited (median, 90th percentile), clerk activity and notifications sent and failed; each a chart
// with its data table under it and its CSV; and the parcels waiting longest now (report-sections.js).
// Counted by the server from its report tallies and indexes.
import { useEffect, useState } from 'preact/hooks'
import { get, qs } from '../api.js'
import { html, Alert, Field } from '../ui.js'
import { BarChart } from '../chart.js'
import { CsvLink, NotificationsSent, OldestWaiting } from './report-sections.js'
import { SummaryEmail } from './summary-email.js'

const isoDay = (d) => d.toISOString().slice(0, 10)
const defaults = () => {
  const to = new Date()
  return { from: isoDay(new Date(to.getTime() - 29 * 86_400_000)), to: isoDay(to), period: 'day', groupBy: 'site' }
}

function totals(volume) {
  const periods = [...new Set(volume.map((v) => v.period))].sort()
  const sum = (p, k) => volume.filter((v) => v.period === p).reduce((a, v) => a + v[k], 0)
  return {
    periods,
    received: periods.map((p) => sum(p, 'received')),
    handedOver: periods.map((p) => sum(p, 'handedOver')),
  }
}

export function Reports({ user }) {
  const [query, setQuery] = useState(defaults)
  const [form, setForm] = useState(defaults)
  const [report, setReport] = useState(null)
  const [error, setError] = useState(null)
  useEffect(() => {
    setError(null)
    get(`/api/v1/reports?${qs(query)}`).then(setReport, (err) => setError(err))
  }, [query])
  const apply = (e) => {
    e.preventDefault()
    setQuery({ ...form })
  }
  const t = report ? totals(report.volume) : null
  const groups = report ? [...new Set(report.volume.map((v) => v.groupName))].sort() : []
  return html`<main id="main" class="reports">
    <h1>Reports</h1>
    <form class="card filters" onSubmit=${apply} aria-label="Report period">
      <${Field} label="From" id="rep-from" errors=${error?.forField?.('from') ?? []}>
        ${(a) => html`<input type="date" ...${a} value=${form.from} onInput=${(e) => setForm({ ...form, from: e.target.value })} />`}
      </${Field}>
      <${Field} label="To" id="rep-to" errors=${error?.forField?.('to') ?? []}>
        ${(a) => html`<input type="date" ...${a} value=${form.to} onInput=${(e) => setForm({ ...form, to: e.target.value })} />`}
      </${Field}>
      <${Field} label="Per" id="rep-period">
        ${(a) =>
          html`<select ...${a} value=${form.period} onChange=${(e) => setForm({ ...form, period: e.target.value })}>
            <option value="day">Day</option>
            <option value="week">Week</option>
          </select>`}
      </${Field}>
      <${Field} label="By" id="rep-group">
        ${(a) =>
          html`<select ...${a} value=${form.groupBy} onChange=${(e) => setForm({ ...form, groupBy: e.target.value })}>
            <option value="site">Site</option>
            <option value="carrier">Carrier</option>
          </select>`}
      </${Field}>
      <button type="submit">Show</button>
    </form>
    <${Alert} messages=${error && !error.forField?.('from').length && !error.forField?.('to').length ? [error.message] : []} />
    ${!report && !error && html`<p>Loading…</p>`}
    ${
      report &&
      html`<section class="card" aria-labelledby="volume-title">
          <h2 id="volume-title">Received and handed over</h2>
          <${BarChart}
            id="volume"
            title=${`Parcels per ${report.period}, ${report.from} to ${report.to}`}
            categories=${t.periods}
            series=${[
              { name: 'Received', values: t.received },
              { name: 'Handed over', values: t.handedOver },
            ]}
          />
          <h3>Per ${report.groupBy}</h3>
          <div class="table-wrap">
            <table data-testid="volume-groups">
              <thead>
                <tr>
                  <th scope="col">${report.groupBy === 'site' ? 'Site' : 'Carrier'}</th>
                  <th scope="col">Received</th>
                  <th scope="col">Handed over</th>
                </tr>
              </thead>
              <tbody>
                ${groups.map((g) => {
                  const rows = report.volume.filter((v) => v.groupName === g)
                  return html`<tr>
                    <th scope="row">${g}</th>
                    <td>${rows.reduce((a, v) => a + v.received, 0)}</td>
                    <td>${rows.reduce((a, v) => a + v.handedOver, 0)}</td>
                  </tr>`
                })}
              </tbody>
            </table>
          </div>
          <p><${CsvLink} table="volume" query=${query} label="received and handed over" /></p>
        </section>
        <section class="card" aria-labelledby="dwell-title">
          <h2 id="dwell-title">Time waiting</h2>
          <${BarChart}
            id="dwell"
            unit=" h"
            title=${`Hours from arrival to hand-over per ${report.period}`}
            categories=${report.dwell.map((d) => d.period)}
            series=${[
              { name: 'Median (h)', values: report.dwell.map((d) => d.medianHours) },
              { name: '90th percentile (h)', values: report.dwell.map((d) => d.p90Hours) },
            ]}
          />
          <p><${CsvLink} table="dwell" query=${query} label="time waiting" /></p>
        </section>
        <section class="card" aria-labelledby="clerks-title">
          <h2 id="clerks-title">Clerk activity</h2>
          <${BarChart}
            id="clerks"
            title="Parcels each clerk received and handed over"
            categories=${report.clerks.map((c) => c.clerk || '(unknown)')}
            series=${[
              { name: 'Received', values: report.clerks.map((c) => c.received) },
              { name: 'Handed over', values: report.clerks.map((c) => c.handedOver) },
            ]}
          />
          <p><${CsvLink} table="clerks" query=${query} label="clerk activity" /></p>
        </section>
        <${NotificationsSent} report=${report} query=${query} />
        <${OldestWaiting} report=${report} query=${query} />`
    }
    ${user?.role === 'admin' && html`<${SummaryEmail} user=${user} />`}
  </main>`
}
