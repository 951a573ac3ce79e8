// Returns to sender (issue 30.2): the parcels the proposal job found waiting past their site's
// return deadline, oldest arrival first. A clerk confirms (the parcel goes back: RETURNED_TO_SENDER),
// dismisses (it keeps waiting, never proposed again) or extends (out of the list for 7 days). With
// a proposal focused: R returns, D dismisses, E extends; the next proposal takes the focus.
import { useEffect, useState } from 'preact/hooks'
import { get, post, ApiError } from '../api.js'
import { html, Alert, Link, fmtTime } from '../ui.js'

const EXTEND_DAYS = 7
const daysSince = (iso) => Math.floor((Date.now() - new Date(iso).getTime()) / 86_400_000)

export function Returns() {
  const [proposals, setProposals] = useState(null)
  const [total, setTotal] = useState(0)
  const [error, setError] = useState(null)
  const [said, say] = useState('')
  const load = async () => {
    try {
      const res = await get('/api/v1/returnProposals?limit=100')
      setProposals(res.proposals)
      setTotal(res.totalCount)
    } catch (err) {
      setError(err)
    }
  }
  useEffect(() => void load(), [])

  const decide = async (p, action) => {
    setError(null)
    try {
      const id = encodeURIComponent(p.proposalId)
      if (action === 'confirm') await post(`/api/v1/returnProposals/${id}/confirm`, {})
      else if (action === 'dismiss') await post(`/api/v1/returnProposals/${id}/dismiss`, {})
      else await post(`/api/v1/returnProposals/${id}/extend`, { days: EXTEND_DAYS })
      const done = { confirm: 'returned to sender', dismiss: 'kept waiting', extend: `back in ${EXTEND_DAYS} days` }
      say(`${p.trackingNumber}: ${done[action]}.`)
      await load()
      setTimeout(() => document.querySelector('.return-proposal')?.focus(), 0)
    } catch (err) {
      setError(err)
    }
  }

  const err = error instanceof ApiError ? error : null
  return html`<main id="main" class="returns">
    <h1>Returns</h1>
    <p class="sr" role="status" aria-live="polite" data-testid="announce">${said}</p>
    <${Alert} messages=${error ? (err ? err.unclaimed([]) : [error.message]) : []} />
    ${proposals === null && html`<p>Loading…</p>`}
    ${proposals?.length === 0 && html`<p data-testid="returns-empty">No parcel is due for return.</p>`}
    ${
      proposals?.length > 0 &&
      html`<p>
        ${total} past their site's return deadline, oldest first. Select one and press R to return it to its sender, D
        to keep it, E to look again in ${EXTEND_DAYS} days.
      </p>`
    }
    <ol class="issue-list">
      ${(proposals ?? []).map((p, i) => html`<${Proposal} key=${p.proposalId} p=${p} first=${i === 0} onDecide=${decide} />`)}
    </ol>
  </main>`
}

const KEYS = { r: 'confirm', d: 'dismiss', e: 'extend' }

function Proposal({ p, first, onDecide }) {
  const onKey = (e) => {
    if (e.target !== e.currentTarget || e.ctrlKey || e.metaKey || e.altKey) return
    const action = KEYS[e.key.toLowerCase()]
    if (action) {
      e.preventDefault()
      onDecide(p, action)
    }
  }
  const waited = daysSince(p.receivedAt)
  const label = `${p.trackingNumber}${p.receiver ? ` for ${p.receiver.name}` : ''}: waited ${waited} days, deadline ${p.deadlineDays}.`
  return html`<li class="return-proposal card" tabindex="0" data-main-control=${first ? '' : undefined}
    aria-label=${label} aria-keyshortcuts="R D E" onKeyDown=${onKey} data-testid="return-proposal">
    <p><${Link} to=${`/packages/${p.packageId}`}>${p.trackingNumber}</${Link}>${p.receiver ? ` · ${p.receiver.name}` : ''}${p.siteName ? ` · ${p.siteName}` : ''}</p>
    <p>Received ${fmtTime(p.receivedAt)}: waited ${waited} days (deadline ${p.deadlineDays} days).</p>
    <p class="actions">
      <button type="button" aria-keyshortcuts="R" onClick=${() => onDecide(p, 'confirm')}><kbd>R</kbd> Return to sender</button>
      <button type="button" class="secondary" aria-keyshortcuts="D" onClick=${() => onDecide(p, 'dismiss')}><kbd>D</kbd> Keep waiting</button>
      <button type="button" class="secondary" aria-keyshortcuts="E" onClick=${() => onDecide(p, 'extend')}><kbd>E</kbd> Look again in ${EXTEND_DAYS} days</button>
    </p>
  </li>`
}
