// Exceptions (issue 30.3): every parcel that needs something done, oldest first, each with its next
// action one link or button away; filtered by kind and site, a page at a time. The counts per kind
// are the filter's buttons, and the dashboard shows them too (ExceptionCounts).
import { useEffect, useState } from 'preact/hooks'
import { get, post, qs } from '../api.js'
import { html, Alert, Link, Pager, fmtTime, siteName } from '../ui.js'
import { loadSites } from '../data.js'
import { EXCEPTION_KINDS } from '../vocabulary.js'

/** What each kind is called at the desk; a kind the server adds later shows under its own name. */
const KIND_LABELS = {
  unclaimed: 'Unclaimed',
  unmatched_recipient: 'Recipient not matched',
  unknown_format: 'Unknown format',
  damaged: 'Damaged',
  recipient_departed: 'Recipient left',
  notification_failed: 'Notification failed',
  missing_from_shelf: 'Missing from its shelf',
  return_proposed: 'Return proposed',
}
export const kindLabel = (kind) => KIND_LABELS[kind] ?? kind.replace(/_/g, ' ')

const PAGE = 25

/** The next action of one exception: a link to where it is done, or the resend itself. */
function NextAction({ x, onResend }) {
  const label = `${kindLabel(x.kind)}: ${x.trackingNumber ?? x.packageId}`
  switch (x.nextAction) {
    case 'match_recipient':
      return html`<${Link} to="/scanissues" aria-label=${`Match a recipient (${label})`}>Match a recipient</${Link}>`
    case 'hand_over_or_return':
      return html`<${Link} to=${`/packages/${x.packageId}`} aria-label=${`Hand over or return (${label})`}>Hand over or return</${Link}>`
    case 'resend_notification':
      return html`<button
        type="button"
        class="secondary"
        onClick=${() => onResend(x)}
        aria-label=${`Resend the notification (${label})`}
      >
        Resend the notification
      </button>`
    case 'decide_return':
      return html`<${Link} to="/returns" aria-label=${`Decide the return (${label})`}>Decide the return</${Link}>`
    case 'audit_shelf':
      return html`<${Link} to="/shelves/audit" aria-label=${`Audit the shelf (${label})`}>Audit the shelf</${Link}>`
    default:
      return html`<${Link} to=${`/packages/${x.packageId}`} aria-label=${`Open the package (${label})`}>Open the package</${Link}>`
  }
}

/** The counts per kind, as the dashboard and the screen's filter show them: each a way into the list. */
export function ExceptionCounts({ counts, kind, onPick }) {
  return html`<ul class="exception-counts">
    ${counts.map((c) => {
      const text = `${kindLabel(c.kind)}: ${c.count}`
      return html`<li>
        ${
          onPick
            ? html`<button
                type="button"
                class="secondary"
                aria-pressed=${kind === c.kind ? 'true' : 'false'}
                onClick=${() => onPick(kind === c.kind ? '' : c.kind)}
              >
                ${text}
              </button>`
            : html`<${Link} to=${`/exceptions?${qs({ kind: c.kind })}`}>${text}</${Link}>`
        }
      </li>`
    })}
  </ul>`
}

export function Exceptions() {
  const start = new URLSearchParams(location.search)
  const [kind, setKind] = useState(EXCEPTION_KINDS.includes(start.get('kind')) ? start.get('kind') : '')
  const [site, setSite] = useState('')
  const [days, setDays] = useState(3)
  const [page, setPage] = useState(1)
  const [sites, setSites] = useState([])
  const [counts, setCounts] = useState(null)
  const [result, setResult] = useState(null)
  const [error, setError] = useState(null)
  const [said, say] = useState('')
  const [round, setRound] = useState(0)
  useEffect(() => {
    loadSites().then((all) => setSites(all.filter((s) => s.type === 'site')), setError)
  }, [])
  useEffect(() => setPage(1), [kind, site, days])
  useEffect(() => {
    const filter = { inboundSiteId: site, unclaimedDays: days }
    setError(null)
    Promise.all([
      get(`/api/v1/exceptions/counts?${qs(filter)}`),
      get(`/api/v1/exceptions?${qs({ ...filter, kind, page, size: PAGE })}`),
    ]).then(([c, r]) => {
      setCounts(c)
      setResult(r)
    }, setError)
  }, [kind, site, days, page, round])

  const resend = async (x) => {
    try {
      await post(`/api/v1/notifications/${encodeURIComponent(x.notificationId)}/resend`)
      say(`${x.trackingNumber ?? x.packageId}: the notification is sent again.`)
      setRound(round + 1)
    } catch (err) {
      setError(err)
    }
  }

  const more = result && result.totalCount > page * PAGE
  return html`<main id="main" class="exceptions-screen">
    <h1>Exceptions</h1>
    <p class="sr" role="status" aria-live="polite">${said}</p>
    <${Alert} messages=${error ? [error.message] : []} />
    <div class="filters">
      <label
        >Site
        <select value=${site} onChange=${(e) => setSite(e.target.value)}>
          <option value="">Every site</option>
          ${sites.map((s) => html`<option value=${s.inboundSiteId}>${s.name}</option>`)}
        </select>
      </label>
      <label
        >Unclaimed after (days)
        <input
          type="number"
          min="0"
          max="365"
          class="narrow"
          value=${days}
          onInput=${(e) => setDays(Math.min(365, Math.max(0, Number(e.target.value) || 0)))}
        />
      </label>
    </div>
    ${
      counts &&
      html`<section aria-labelledby="exc-kinds">
        <h2 id="exc-kinds">${counts.totalCount} in all; show one kind</h2>
        <${ExceptionCounts} counts=${counts.counts} kind=${kind} onPick=${setKind} />
      </section>`
    }
    ${result && result.exceptions.length === 0 && html`<p data-testid="no-exceptions">Nothing needs doing${kind ? ` (${kindLabel(kind)})` : ''}.</p>`}
    <ul class="exception-list" aria-label=${kind ? `Exceptions: ${kindLabel(kind)}` : 'Exceptions'}>
      ${(result?.exceptions ?? []).map(
        (x) =>
          html`<li class="card" data-testid="exception">
            <p><strong>${kindLabel(x.kind)}</strong> · <${Link} to=${`/packages/${x.packageId}`}>${x.trackingNumber ?? x.packageId}</${Link}>
              ${x.receiver ? ` · ${x.receiver.name}` : ''} · ${siteName(x.currentLocation)}</p>
            <p>Since ${fmtTime(x.since)}${x.detail ? ` · ${x.detail}` : ''}</p>
            <p><${NextAction} x=${x} onResend=${resend} /></p>
          </li>`,
      )}
    </ul>
    <${Pager} label="Pages of exceptions" page=${page} more=${more} onPage=${setPage} />
  </main>`
}
