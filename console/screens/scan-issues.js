// The scan-issues queue (issue 27): packages received from a label photo whose recipient was not
// chosen, oldest first. Each shows the photo, the name as read, why it was not chosen and the best
// three suggestions; 1, 2 or 3 settles the issue in the list's focus with that suggestion, and
// another recipient can be searched for.
import { useEffect, useState } from 'preact/hooks'
import { apiUrl, get, post, ApiError } from '../api.js'
import { html, Alert, Link, fmtTime } from '../ui.js'
import { Combobox } from '../combobox.js'
import { searchRecipients } from '../recipients.js'

const REASONS = {
  no_match: 'No contact matches the name.',
  partial_match: 'Not a sure match.',
  several_matches: 'Several contacts match.',
  business: 'Business mail: a company, no person.',
}

export function ScanIssues() {
  const [issues, setIssues] = useState(null)
  const [total, setTotal] = useState(0)
  const [error, setError] = useState(null)
  const [said, say] = useState('')
  const load = async () => {
    try {
      const res = await get('/api/v1/scanissues?size=50')
      setIssues(res.scanIssues)
      setTotal(res.totalCount)
    } catch (err) {
      setError(err)
    }
  }
  useEffect(() => void load(), [])

  const resolve = async (issue, contact) => {
    setError(null)
    try {
      await post(`/api/v1/scanissues/${encodeURIComponent(issue.scanIssueId)}/resolve`, {
        contactId: contact.contactId,
      })
      say(`${issue.trackingNumber ?? issue.packageId}: recipient ${contact.name}.`)
      await load()
      // The next issue takes the focus: the clerk works down the queue with the number keys.
      setTimeout(() => document.querySelector('.scan-issue')?.focus(), 0)
    } catch (err) {
      setError(err)
    }
  }

  const err = error instanceof ApiError ? error : null
  return html`<main id="main" class="scan-issues">
    <h1>Scan issues</h1>
    <p class="sr" role="status" aria-live="polite" data-testid="announce">${said}</p>
    <${Alert} messages=${error ? (err ? err.unclaimed([]) : [error.message]) : []} />
    ${issues === null && html`<p>Loading…</p>`}
    ${issues?.length === 0 && html`<p data-testid="queue-empty">No package is waiting for its recipient.</p>`}
    ${issues?.length > 0 && html`<p>${total} waiting, oldest first. Select one and press 1, 2 or 3 to choose its recipient.</p>`}
    <ol class="issue-list">
      ${(issues ?? []).map((issue, i) => html`<${Issue} key=${issue.scanIssueId} issue=${issue} first=${i === 0} onResolve=${resolve} />`)}
    </ol>
  </main>`
}

function Issue({ issue, first, onResolve }) {
  const [other, setOther] = useState(null)
  const onKey = (e) => {
    if (e.target !== e.currentTarget || e.ctrlKey || e.metaKey || e.altKey) return
    const n = Number(e.key)
    if (n >= 1 && n <= issue.suggestions.length) {
      e.preventDefault()
      onResolve(issue, issue.suggestions[n - 1])
    }
  }
  const name = issue.read.name
  return html`<li class="scan-issue card" tabindex="0" data-main-control=${first ? '' : undefined}
    aria-label=${`${issue.trackingNumber ?? issue.packageId}: ${name ?? 'no name read'}. ${REASONS[issue.reason]}`}
    aria-keyshortcuts="1 2 3" onKeyDown=${onKey} data-testid="scan-issue">
    ${issue.imageId && html`<img class="label-photo" alt="Label photo" src=${apiUrl(`temp/images/${issue.imageId}`)} />`}
    <div>
      <p><${Link} to=${`/packages/${issue.packageId}`}>${issue.trackingNumber ?? issue.packageId}</${Link}> · ${fmtTime(issue.openedAt)} · ${issue.openedBy}</p>
      <p>Read: <mark>${name ?? '(no name)'}</mark>${issue.read.company ? ` · ${issue.read.company}` : ''}${issue.read.unit ? ` · unit ${issue.read.unit}` : ''}</p>
      <p class="reason">${REASONS[issue.reason]}</p>
      <ol class="suggestions" aria-label="Suggested recipients">
        ${issue.suggestions.map(
          (s, i) =>
            html`<li key=${s.contactId}>
              <button
                type="button"
                class="secondary"
                aria-keyshortcuts=${String(i + 1)}
                onClick=${() => onResolve(issue, s)}
              >
                <kbd>${i + 1}</kbd> ${s.name}${s.unit ? ` · ${s.unit}` : ''} · ${Math.round(s.score * 100)}%
              </button>
            </li>`,
        )}
      </ol>
      <${Combobox} label="Someone else" id=${`issue-${issue.scanIssueId}-other`} value=${other} search=${searchRecipients}
        onPick=${(o) => {
          setOther(o)
          if (o) onResolve(issue, { contactId: o.id, name: o.label })
        }} />
    </div>
  </li>`
}
