// Admin › Directory: where recipients come from besides the desk. SCIM tokens for an identity
// provider (Okta, Entra ID: the token is shown once, the server keeps only its hash) and the
// LDAP / Active Directory pull (the bind password is sealed and never shown again).
import { useState } from 'preact/hooks'
import { get, post, put, del } from '../api.js'
import { html, Field, Alert, refusal, fmtTime } from '../ui.js'
import { useForm, useList, useAction, useConfirm } from '../admin-kit.js'

export function Directory() {
  return html`<${ScimTokens} /><${Ldap} />`
}

function ScimTokens() {
  const tokens = useList(() => get('/api/v1/directory/scim/tokens'))
  const [shown, setShown] = useState(null)
  const action = useAction()
  const confirm = useConfirm()
  const form = useForm(
    { name: '' },
    async (v) => {
      setShown(await post('/api/v1/directory/scim/tokens', { name: v.name }))
      await tokens.reload()
      return null
    },
    ['name'],
  )
  const revoke = (tk) =>
    action.run(async () => {
      const yes = await confirm.ask({
        title: `Revoke the SCIM token ${tk.name}?`,
        message: `${tk.name} can no longer provision recipients with it.`,
        confirmLabel: 'Yes, revoke',
      })
      if (!yes) return null
      await del(`/api/v1/directory/scim/tokens/${encodeURIComponent(tk.tokenId)}`)
      await tokens.reload()
      return `SCIM token ${tk.name} revoked.`
    })
  if (tokens.error) return html`<${Alert} messages=${[refusal(tokens.error)]} />`
  const list = tokens.items?.tokens ?? []
  return html`<section class="card" aria-labelledby="scim-title">
      <h2 id="scim-title">SCIM provisioning</h2>
      <p>
        Identity providers (Okta, Entra ID, OneLogin) create, update and deactivate recipients here. SCIM base URL:
        <code>${tokens.items?.scimUrl ?? ''}</code>
      </p>
      ${action.messages}
      ${shown && html`<${TokenOnce} token=${shown} onDismiss=${() => setShown(null)} />`}
      <table>
        <thead>
          <tr>
            <th scope="col">Name</th>
            <th scope="col">Created</th>
            <th scope="col">Last used</th>
            <th scope="col">Actions</th>
          </tr>
        </thead>
        <tbody>
          ${list.map(
            (tk) =>
              html`<tr>
                <td>${tk.name}</td>
                <td>${fmtTime(tk.createdAt)}</td>
                <td>${fmtTime(tk.lastUsedAt) || 'never'}</td>
                <td><button type="button" class="link" onClick=${() => revoke(tk)}>Revoke ${tk.name}</button></td>
              </tr>`,
          )}
        </tbody>
      </table>
      ${list.length === 0 && html`<p>No SCIM token yet.</p>`} ${confirm.dialog}
    </section>
    <form class="card" novalidate onSubmit=${form.onSubmit} aria-labelledby="new-scim-token">
      <h2 id="new-scim-token">New SCIM token</h2>
      ${form.messages}
      <${Field} label="Who uses it" id="scim-token-name" hint="For example Okta or Entra ID." errors=${form.errorsOf('name')}>${(a) => html`<input ...${a} ...${form.bind('name')} />`}</${Field}>
      <button type="submit" disabled=${form.busy}>Create SCIM token</button>
    </form>`
}

function TokenOnce({ token, onDismiss }) {
  const [copied, setCopied] = useState(null)
  const copy = async () => {
    try {
      await navigator.clipboard.writeText(token.token)
      setCopied('Copied.')
    } catch {
      document.getElementById('scim-token')?.select()
      setCopied('Selected: press Ctrl+C to copy.')
    }
  }
  return html`<div class="secret-once card" role="region" aria-labelledby="scim-token-title">
    <h3 id="scim-token-title">SCIM token ${token.name} created.</h3>
    <p class="alert warning">
      Copy the token now: it is shown only this once. Paste it into the identity provider's SCIM app.
    </p>
    <div class="field">
      <label for="scim-token">Bearer token</label>
      <input id="scim-token" readonly value=${token.token} onFocus=${(e) => e.target.select()} />
    </div>
    <div class="actions">
      <button type="button" onClick=${copy}>Copy token</button>
      <button type="button" class="secondary" onClick=${onDismiss}>I have copied it</button>
    </div>
    <p role="status">${copied ?? ''}</p>
  </div>`
}

const EMPTY = {
  url: '',
  bindDn: '',
  bindPassword: '',
  baseDn: '',
  filter: '(objectClass=person)',
  intervalMinutes: '60',
  maxDeactivationPercent: '10',
  enabled: true,
}

function Ldap() {
  // false: not configured yet (404); null: still loading.
  const settings = useList(() =>
    get('/api/v1/directory/ldap').catch((err) => (err.status === 404 ? false : Promise.reject(err))),
  )
  if (settings.error) return html`<${Alert} messages=${[refusal(settings.error)]} />`
  if (settings.items === null) return null
  return html`<${LdapSettings}
    key=${settings.items ? 'set' : 'new'}
    cur=${settings.items || null}
    reload=${settings.reload}
  />`
}

function LdapSettings({ cur, reload }) {
  const action = useAction()
  const [report, setReport] = useState(null)
  const form = useForm(
    cur
      ? {
          ...EMPTY,
          ...cur,
          bindPassword: '',
          intervalMinutes: String(cur.intervalMinutes),
          maxDeactivationPercent: String(cur.maxDeactivationPercent),
        }
      : EMPTY,
    async (v) => {
      await put('/api/v1/directory/ldap', {
        url: v.url,
        bindDn: v.bindDn,
        ...(v.bindPassword ? { bindPassword: v.bindPassword } : {}),
        baseDn: v.baseDn,
        filter: v.filter,
        intervalMinutes: Number(v.intervalMinutes),
        maxDeactivationPercent: Number(v.maxDeactivationPercent),
        enabled: v.enabled,
      })
      await reload()
      return 'LDAP settings saved: the first sync runs within a minute.'
    },
    ['url', 'bindDn', 'bindPassword', 'baseDn', 'filter', 'intervalMinutes', 'maxDeactivationPercent'],
  )
  // `confirmRunId`: the refused run an admin confirms (docs/directory.md, "Mass deactivation").
  const run = (dryRun, confirmRunId) =>
    action.run(async () => {
      const out = await post('/api/v1/directory/ldap/run', { dryRun, ...(confirmRunId ? { confirmRunId } : {}) })
      setReport(out)
      if (!dryRun) await reload()
      if (out.refused) return `${dryRun ? 'Dry run: ' : ''}${out.error}`
      return dryRun ? 'Dry run: nothing was written.' : 'Synced.'
    })
  const last = report ?? cur?.lastRun
  return html`<form class="card" novalidate onSubmit=${form.onSubmit} aria-labelledby="ldap-title">
      <h2 id="ldap-title">LDAP / Active Directory</h2>
      ${form.messages}
      <${Field} label="Server URL" id="ldap-url" hint="ldap://host:389 or ldaps://host:636" errors=${form.errorsOf('url')}>${(a) => html`<input ...${a} ...${form.bind('url')} />`}</${Field}>
      <${Field} label="Bind DN" id="ldap-bind-dn" errors=${form.errorsOf('bindDn')}>${(a) => html`<input ...${a} ...${form.bind('bindDn')} />`}</${Field}>
      <${Field} label="Bind password" id="ldap-bind-password" hint=${cur ? 'Leave as it is to keep the stored one.' : ''} errors=${form.errorsOf('bindPassword')}>${(a) => html`<input ...${a} type="password" autocomplete="off" ...${form.bind('bindPassword')} />`}</${Field}>
      <${Field} label="Base DN" id="ldap-base-dn" errors=${form.errorsOf('baseDn')}>${(a) => html`<input ...${a} ...${form.bind('baseDn')} />`}</${Field}>
      <${Field} label="Filter" id="ldap-filter" errors=${form.errorsOf('filter')}>${(a) => html`<input ...${a} ...${form.bind('filter')} />`}</${Field}>
      <${Field} label="Every (minutes)" id="ldap-interval" errors=${form.errorsOf('intervalMinutes')}>${(a) => html`<input ...${a} type="number" min="5" ...${form.bind('intervalMinutes')} />`}</${Field}>
      <${Field} label="Most deactivated in one run (%)" id="ldap-max-deactivation" hint="Of the active LDAP contacts (1–50; 5 people always pass). A run past it writes nothing until you confirm it." errors=${form.errorsOf('maxDeactivationPercent')}>${(a) => html`<input ...${a} type="number" min="1" max="50" ...${form.bind('maxDeactivationPercent')} />`}</${Field}>
      <label class="check"><input type="checkbox" ...${form.check('enabled')} /> Sync on this schedule</label>
      <button type="submit" disabled=${form.busy}>Save LDAP settings</button>
    </form>
    ${
      cur &&
      html`<section class="card" aria-labelledby="ldap-run-title">
        <h2 id="ldap-run-title">LDAP sync</h2>
        ${action.messages}
        <div class="actions">
          <button type="button" class="secondary" onClick=${() => run(true)}>Dry run</button>
          <button type="button" onClick=${() => run(false)}>Sync now</button>
        </div>
        ${
          last &&
          html`<dl class="facts">
            <dt>Last run</dt>
            <dd>
              ${fmtTime(last.at)}
              ${last.ok ? '' : last.refused ? `: refused, nothing written. ${last.error}` : `: failed, ${last.error ?? ''}`}
            </dd>
            <dt>Entries</dt>
            <dd>${last.seen}</dd>
            <dt>Added</dt>
            <dd>${last.created}</dd>
            <dt>Updated</dt>
            <dd>${last.updated}</dd>
            <dt>Deactivated</dt>
            <dd>${last.deactivated}</dd>
            <dt>Invalid</dt>
            <dd>${last.invalid}</dd>
          </dl>`
        }
        ${
          // The recorded run (a dry run's id confirms nothing).
          cur.lastRun?.refused &&
          html`<p>
            <button type="button" class="danger" onClick=${() => run(false, cur.lastRun.runId)}>
              Confirm: deactivate these ${cur.lastRun.refused.deactivations} contacts
            </button>
          </p>`
        }
      </section>`
    }`
}
