// The report's sections that are not day tallies (issue 30.4): the parcels waiting longest now,
// and the notifications sent and failed per day; and the CSV link every section ends with.
import { apiUrl, qs } from '../api.js'
import { html, Link } from '../ui.js'
import { BarChart } from '../chart.js'

export function CsvLink({ table, query, label }) {
  return html`<a href=${apiUrl(`/api/v1/reports/${table}/csv?${qs(query)}`)} download
    >CSV<span class="sr"> of ${label}</span></a
  >`
}

/** The oldest waiting parcels now (the period does not apply): a table, each row linking its record. */
export function OldestWaiting({ report, query }) {
  const rows = report.oldestWaiting
  return html`<section class="card" aria-labelledby="oldest-title">
    <h2 id="oldest-title">Oldest waiting</h2>
    <p class="hint">Waiting now, not handed over; the period above does not apply.</p>
    ${
      rows.length === 0
        ? html`<p>Nothing is waiting.</p>`
        : html`<div class="table-wrap">
            <table data-testid="oldest-table">
              <caption class="sr">
                The parcels waiting longest, oldest first
              </caption>
              <thead>
                <tr>
                  <th scope="col">Tracking number</th>
                  <th scope="col">Site</th>
                  <th scope="col">Status</th>
                  <th scope="col">Received</th>
                  <th scope="col">Days waiting</th>
                </tr>
              </thead>
              <tbody>
                ${rows.map(
                  (o) =>
                    html`<tr>
                      <th scope="row">
                        <${Link} to=${`/packages/${o.packageId}`}>${o.trackingNumber}</${Link}>
                      </th>
                      <td>${o.siteName}</td>
                      <td>${o.status}</td>
                      <td>${o.receivedAt.slice(0, 16).replace('T', ' ')} UTC</td>
                      <td>${o.waitingDays}</td>
                    </tr>`,
                )}
              </tbody>
            </table>
          </div>`
    }
    <p><${CsvLink} table="oldest" query=${query} label="oldest waiting" /></p>
  </section>`
}

/** Notifications sent and failed per day of the period (by the day they were made). */
export function NotificationsSent({ report, query }) {
  const rows = report.notifications
  return html`<section class="card" aria-labelledby="notifications-title">
    <h2 id="notifications-title">Notifications</h2>
    <${BarChart}
      id="notifications"
      title=${`Notifications sent and failed per day, ${report.from} to ${report.to}`}
      categories=${rows.map((n) => n.day)}
      series=${[
        { name: 'Sent', values: rows.map((n) => n.sent) },
        { name: 'Failed', values: rows.map((n) => n.failed) },
      ]}
    />
    <p><${CsvLink} table="notifications" query=${query} label="notifications" /></p>
  </section>`
}
