// A package's History (issue 25 item 5): every activity with its comment and the clerk by name,
// every email sent about it (arrival, reminders, final notice, receipt) with its status, and one
// line per pickup (who collected, for whom, how they signed), oldest first. An email can be sent
// again from here; the answer is said where the button was.
import { useEffect, useState } from 'preact/hooks'
import { get, post, apiUrl } from '../api.js'
import { html, Alert, fmtTime, siteName } from '../ui.js'

const KIND = { ARRIVAL: 'Arrival email', REMINDER: 'Reminder', FINAL_NOTICE: 'Final notice', PICKED_UP: 'Receipt' }
const STATUS = {
  pending: 'waiting to be sent',
  sent: 'sent',
  failed: 'failed',
  suppressed: 'not sent',
  unconfirmed: 'sent, unconfirmed',
}

/** The emails of one package, newest first as the API lists them. */
const emailsOf = async (packageId) =>
  (await get(`/api/v1/notifications?packageId=${encodeURIComponent(packageId)}&limit=200`)).notifications

/** Each pickup the activities name, once: who collected, on whose behalf, and the typed signature if any. */
async function pickupsOf(activities) {
  const ids = [...new Set(activities.map((a) => a.pickupId).filter(Boolean))]
  const found = await Promise.all(ids.map((id) => get(`/api/v1/pickups/${encodeURIComponent(id)}`).catch(() => null)))
  return new Map(found.filter(Boolean).map((p) => [p.pickupId, p]))
}

/** The clerk by name (reportedBy), with the account or API client that wrote it (userName) beside it. */
const clerkOf = (a) => (a.reportedBy && a.reportedBy !== a.userName ? `${a.reportedBy} (${a.userName})` : a.userName)

function emailLine(n) {
  const what = `${KIND[n.kind] ?? n.kind}${n.step && n.kind === 'REMINDER' ? ` ${n.step}` : ''}`
  const why = n.status === 'failed' && n.lastError ? ` (${n.lastError})` : ''
  // A text (issue 29): said so, with the provider's latest delivery receipt.
  const text = n.channel === 'sms' ? `${what.replace(' email', '')} text` : what
  const receipt = n.deliveryStatus ? `, ${n.deliveryStatus}` : ''
  return `${text} to ${n.to}: ${STATUS[n.status] ?? n.status}${receipt}${why}`
}

function pickupLine(p) {
  const behalf = p.onBehalfOf ? ` on behalf of ${p.onBehalfOf.name ?? p.onBehalfOf.contactId}` : ''
  const signed = p.typedSignature
    ? ` · signature typed: ${p.typedSignature}`
    : p.images.some((i) => i.imageType === 'SIGNATURE')
      ? ' · signed'
      : p.images.some((i) => i.imageType === 'PHOTO')
        ? ' · photo'
        : ''
  return `Picked up by ${p.givenTo.name}${behalf}${signed}`
}

export function History({ pkg, activities, reloadKey }) {
  const [emails, setEmails] = useState([])
  const [pickups, setPickups] = useState(new Map())
  const [said, setSaid] = useState(null)
  const [error, setError] = useState(null)
  const load = () =>
    Promise.all([emailsOf(pkg.packageId), pickupsOf(activities)]).then(([e, p]) => {
      setEmails(e)
      setPickups(p)
    }, setError)
  useEffect(() => void load(), [pkg.packageId, reloadKey, activities.length])

  const resend = async (n) => {
    setSaid(null)
    setError(null)
    try {
      await post(`/api/v1/notifications/${encodeURIComponent(n.notificationId)}/resend`)
      setSaid(`${KIND[n.kind] ?? 'Email'} to ${n.to} will be sent again.`)
      await load()
    } catch (err) {
      setError(err)
    }
  }

  const entries = [
    ...activities.map((a) => ({ at: a.occurredAt, key: a.activityId, activity: a })),
    ...emails.map((n) => ({ at: n.sentAt ?? n.createdAt, key: n.notificationId, email: n })),
  ].sort((x, y) => Date.parse(x.at) - Date.parse(y.at))
  return html`<section class="card" aria-labelledby="history-title">
    <h2 id="history-title">History</h2>
    <div aria-live="polite">
      <${Alert} kind="info" messages=${said ? [said] : []} />
    </div>
    <${Alert} messages=${error ? [error.message] : []} />
    <ol class="timeline" aria-labelledby="history-title">
      ${entries.map(({ at, key, activity: a, email: n }) =>
        a
          ? html`<li key=${key} data-testid="history-activity">
              <strong>${a.status}</strong> · <time datetime=${at}>${fmtTime(at)}</time>
              · ${siteName(a.location)} ${a.packageLocation ?? ''} · by ${clerkOf(a)}
              ${a.pickupId && pickups.get(a.pickupId) && html`<p data-testid="history-pickup">${pickupLine(pickups.get(a.pickupId))}</p>`}
              ${a.comment && html`<p>${a.comment}</p>`}
              ${a.images.length > 0 && html`<div class="thumbs">${a.images.map((i) => html`<img src=${apiUrl(i.tempURL)} alt=${`${i.imageType.toLowerCase()} image`} />`)}</div>`}
            </li>`
          : html`<li key=${key} class="email" data-testid="history-email">
              <strong>Email</strong> · <time datetime=${at}>${fmtTime(at)}</time> · ${emailLine(n)}
              <button
                type="button"
                class="secondary"
                onClick=${() => resend(n)}
                aria-label=${`Resend the ${(KIND[n.kind] ?? 'email').toLowerCase()} to ${n.to}`}
              >
                Resend
              </button>
            </li>`,
      )}
    </ol>
  </section>`
}
