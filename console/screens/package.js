// One package: its details, the "History" timeline (package-history.js: activities, emails, pickups),
// and edit (recipient, comment, flags), move (site, shelf), mark damaged (package-damage.js), archive.
import { useEffect, useRef, useState } from 'preact/hooks'
import { get, put, patch, ApiError } from '../api.js'
import { html, Field, Alert, actionsOf, fmtTime, siteName } from '../ui.js'
import { History } from './package-history.js'
import { MarkDamaged } from './package-damage.js'
import { FlagBadges, FlagChips, feeText } from './parcel-flags.js'
import { ForwardPackage } from './package-forward.js'
import { Combobox, searchContacts } from '../combobox.js'
import { loadSites } from '../data.js'
import { WAITING } from '../statuses.js'
import { useSeeded } from '../seeded.js'

// A move keeps a waiting status, but a parcel out for delivery that is put on a shelf is back: RECEIVED.
const STAYS = WAITING.filter((s) => s !== 'OUT_FOR_DELIVERY')

export function PackageDetail({ id }) {
  const [pkg, setPkg] = useState(null)
  const [history, setHistory] = useState([])
  const [error, setError] = useState(null)
  const [notice, setNotice] = useState(null)
  const [sites, setSites] = useState([])
  const [edit, setEdit] = useSeeded(
    pkg && {
      recipient: pkg.receiver?.contactId ? { id: pkg.receiver.contactId, label: pkg.receiver.name } : null,
      comment: pkg.comment ?? '',
      flags: pkg.flags ?? [],
    },
  )
  const [move, setMove] = useSeeded(
    pkg && { inboundSiteId: pkg.currentLocation?.inboundSiteId ?? '', packageLocation: pkg.packageLocation ?? '' },
  )
  const [loads, setLoads] = useState(0)
  const heading = useRef(null)

  const load = async () => {
    try {
      const [p, h] = await Promise.all([
        get(`/api/v1/packages/${encodeURIComponent(id)}?type=DETAILED`),
        get(`/api/v1/packages/${encodeURIComponent(id)}?type=ACTIVITIES`),
      ])
      setPkg(p)
      setHistory(h.activities)
      setLoads((n) => n + 1)
    } catch (err) {
      setError(err)
    }
  }
  useEffect(() => {
    void load()
    loadSites().then(setSites, () => {})
  }, [id])
  // On arrival the screen's title has the focus (the page is read from its name), once it is there.
  const shown = Boolean(pkg)
  useEffect(() => heading.current?.focus(), [id, shown])

  const act = actionsOf({ setError, setNotice, load })
  const saveEdit = act('Saved.', () =>
    put(`/api/v1/packages/${id}`, {
      package: {
        receiver: edit.recipient ? { contactId: edit.recipient.id } : null,
        comment: edit.comment.trim() || null,
        flags: edit.flags,
      },
    }),
  )
  const saveMove = act('Moved.', () =>
    put(`/api/v1/packages/${id}`, {
      package: {},
      lastActivity: {
        status: STAYS.includes(pkg.currentStatus) ? pkg.currentStatus : 'RECEIVED',
        location: {
          inboundSiteId: move.inboundSiteId,
          ...(move.packageLocation ? { packageLocation: move.packageLocation } : {}),
        },
      },
    }),
  )
  const archive = act('Archived.', () => patch(`/api/v1/packages/${id}/archive`, { archived: !pkg.archived }))

  const err = error instanceof ApiError ? error : null
  if (!pkg)
    return html`<main id="main">
      <h1>Package</h1>
      <${Alert} messages=${error ? [error.message] : []} />${!error && html`<p>Loading…</p>`}
    </main>`
  return html`<main id="main" class="package">
    <h1 ref=${heading} tabindex="-1">Package ${pkg.trackingNumber}</h1>
    <${FlagBadges} flags=${pkg.flags} />
    <div aria-live="polite"><${Alert} kind="info" messages=${notice ? [notice] : []} /></div>
    <${Alert} messages=${error ? (err ? err.unclaimed(['package.receiver', 'package.comment', 'lastActivity.location']) : [error.message]) : []} />
    <section class="card" aria-labelledby="details-title">
      <h2 id="details-title">Details</h2>
      <dl class="facts">
        <dt>Status</dt><dd data-testid="package-status">${pkg.currentStatus}${pkg.archived ? ' (archived)' : ''}${pkg.damaged && pkg.currentStatus !== 'DAMAGED' ? ' (damaged)' : ''}</dd>
        <dt>Carrier</dt><dd>${pkg.carrier?.name ?? ''}</dd>
        <dt>Recipient</dt><dd>${pkg.receiver?.name ?? ''}</dd>
        <dt>Site</dt><dd>${siteName(pkg.currentLocation)} ${pkg.packageLocation ?? ''}</dd>
        ${
          pkg.pickupCode &&
          html`<dt>Pickup code</dt>
            <dd>${pkg.pickupCode}</dd>`
        }
        ${(pkg.customFields ?? []).map(
          (f) =>
            html`<dt>${f.name}</dt>
              <dd data-testid="custom-field">${f.value}</dd>`,
        )}
        ${
          pkg.holdingFee &&
          html`<dt>Holding fee</dt>
            <dd data-testid="holding-fee">${feeText(pkg.holdingFee)}</dd>`
        }
        <dt>Received by</dt><dd>${pkg.receiveClerk ?? ''}</dd>
        ${
          pkg.givenTo &&
          html`<dt>Collected by</dt>
            <dd>${pkg.givenTo.name}</dd>`
        }
        ${
          pkg.deliveryClerk &&
          html`<dt>Handed over by</dt>
            <dd>${pkg.deliveryClerk} · ${fmtTime(pkg.deliveryTime)}</dd>`
        }
      </dl>
    </section>
    <${History} pkg=${pkg} activities=${history} reloadKey=${loads} />
    <form class="card" novalidate onSubmit=${saveEdit} aria-labelledby="edit-title">
      <h2 id="edit-title">Edit</h2>
      <${Combobox} label="Recipient" id="pkg-recipient" value=${edit.recipient} search=${(q) => searchContacts(get, q)}
        errors=${err?.forField('package.receiver') ?? []} onPick=${(recipient) => setEdit((d) => ({ ...d, recipient }))} />
      <${Field} label="Comment" id="pkg-comment" errors=${err?.forField('package.comment') ?? []}>
        ${(a) => html`<textarea ...${a} value=${edit.comment} onInput=${(e) => setEdit((d) => ({ ...d, comment: e.target.value }))}></textarea>`}
      </${Field}>
      <${FlagChips} flags=${edit.flags} onChange=${(flags) => setEdit((d) => ({ ...d, flags }))} prefix="pkg-flag" />
      <button type="submit">Save changes</button>
    </form>
    <form class="card" novalidate onSubmit=${saveMove} aria-labelledby="move-title">
      <h2 id="move-title">Move</h2>
      <${Field} label="New site" id="pkg-site" errors=${err?.forField('lastActivity.location.inboundSiteId') ?? []}>
        ${(a) =>
          html`<select
            ...${a}
            value=${move.inboundSiteId}
            onChange=${(e) => setMove((d) => ({ ...d, inboundSiteId: e.target.value }))}
          >
            <option value="">Choose a site…</option>
            ${sites.map((s) => html`<option value=${s.inboundSiteId}>${siteName(s)}</option>`)}
          </select>`}
      </${Field}>
      <${Field} label="New shelf" id="pkg-shelf" errors=${err?.forField('lastActivity.location.packageLocation') ?? []}>
        ${(a) => html`<input ...${a} value=${move.packageLocation} onInput=${(e) => setMove((d) => ({ ...d, packageLocation: e.target.value }))} />`}
      </${Field}>
      <button type="submit" disabled=${!move.inboundSiteId}>Move</button>
    </form>
    <${ForwardPackage} pkg=${pkg} sites=${sites} onDone=${async (what) => {
      setError(null)
      setNotice(what)
      await load()
    }} />
    <${MarkDamaged} pkg=${pkg} onDone=${async (what) => {
      setError(null)
      setNotice(what)
      await load()
    }} />
    <div class="card">
      <h2>Archive</h2>
      <button type="button" class="secondary" onClick=${archive}>${pkg.archived ? 'Unarchive' : 'Archive'}</button>
    </div>
  </main>`
}
