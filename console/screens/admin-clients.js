// Admin › API clients: the credentials integrations use (client credentials grant). A new client
// and a rotated secret show the secret once, with a copy button: the server keeps only its hash.
import { useState } from 'preact/hooks'
import { get, post, patch } from '../api.js'
import { html, Field, Alert, refusal, fmtTime } from '../ui.js'
import { useForm, useRows, RowsCard, RowActions, EditCard } from '../admin-kit.js'

const clientPath = (c) => `/api/v1/clients/${encodeURIComponent(c.clientId)}`

export function ApiClients() {
  const clients = useRows(() => get('/api/v1/clients').then((r) => r.clients))
  const { action, edit, confirm } = clients
  const [secret, setSecret] = useState(null)
  const form = useForm(
    { name: '' },
    async (v) => {
      const created = await post('/api/v1/clients', { name: v.name })
      setSecret({ ...created, why: `API client ${created.name} created.` })
      await clients.reload()
      return null
    },
    ['name'],
  )
  const setStatus = (c, status) =>
    action.run(async () => {
      setSecret(null)
      await patch(clientPath(c), { status })
      await clients.reload()
      return `${c.name} is ${status}.`
    })
  const rotate = (c) =>
    action.run(async () => {
      const yes = await confirm.ask({
        title: `New secret for ${c.name}?`,
        message: `The secret ${c.name} uses now stops working at once: the integration needs the new one.`,
        confirmLabel: 'Yes, new secret',
      })
      if (!yes) return null
      const rotated = await post(`${clientPath(c)}/secret`)
      setSecret({ ...c, ...rotated, why: `New secret for ${c.name}.` })
      return null
    })
  if (clients.error) return html`<${Alert} messages=${[refusal(clients.error)]} />`
  const client = (clients.items ?? []).find((c) => c.clientId === edit.id)
  return html`<${RowsCard}
      titleId="clients-title"
      title="API clients"
      rows=${clients}
      keyOf=${(c) => c.clientId}
      columns=${[
        ['Name', (c) => c.name],
        ['Client id', (c) => html`<code>${c.clientId}</code>`],
        ['Status', (c) => c.status],
        ['Created', (c) => fmtTime(c.createdAt)],
      ]}
      actions=${(c) =>
        html`<${RowActions} name=${c.name} editing=${edit.id === c.clientId} onEdit=${() => edit.toggle(c.clientId)} />
          ${
            c.status === 'active'
              ? html`<button type="button" class="link" onClick=${() => setStatus(c, 'disabled')}>
                  Disable ${c.name}
                </button>`
              : html`<button type="button" class="link" onClick=${() => setStatus(c, 'active')}>
                  Enable ${c.name}
                </button>`
          }
          <button type="button" class="link" onClick=${() => rotate(c)}>New secret for ${c.name}</button>`}
    >
      ${secret && html`<${SecretOnce} secret=${secret} onDismiss=${() => setSecret(null)} />`}
    </${RowsCard}>
    ${
      client &&
      html`<${RenameClient} key=${client.clientId} client=${client} onDone=${edit.done} onCancel=${edit.cancel} />`
    }
    <form class="card" novalidate onSubmit=${form.onSubmit} aria-labelledby="new-client">
      <h2 id="new-client">New API client</h2>
      ${form.messages}
      <${Field} label="Client name" id="client-name" errors=${form.errorsOf('name')}>${(a) => html`<input ...${a} ...${form.bind('name')} />`}</${Field}>
      <button type="submit" disabled=${form.busy}>Create API client</button>
    </form>`
}

function RenameClient({ client, onDone, onCancel }) {
  const form = useForm(
    { name: client.name },
    async (v) => {
      await patch(clientPath(client), { name: v.name })
      await onDone(`API client ${v.name} saved.`)
    },
    ['name'],
  )
  return html`<${EditCard}
    titleId="edit-client"
    title=${`Edit API client ${client.name}`}
    onSubmit=${form.onSubmit}
    messages=${form.messages}
    busy=${form.busy}
    onCancel=${onCancel}
  >
    <${Field} label="Name" id="edit-client-name" errors=${form.errorsOf('name')}>${(a) => html`<input ...${a} ...${form.bind('name')} />`}</${Field}>
  </${EditCard}>`
}

/** The secret as the server sent it, once: read-only, selectable, copied with one click. */
function SecretOnce({ secret, onDismiss }) {
  const [copied, setCopied] = useState(null)
  const copy = async () => {
    try {
      await navigator.clipboard.writeText(secret.clientSecret)
      setCopied('Copied.')
    } catch {
      // No clipboard (a page served over plain http on the LAN): the text is selected for Ctrl+C.
      document.getElementById('client-secret')?.select()
      setCopied('Selected: press Ctrl+C to copy.')
    }
  }
  return html`<div class="secret-once card" role="region" aria-labelledby="secret-title">
    <h3 id="secret-title">${secret.why}</h3>
    <p class="alert warning">
      Copy the secret now: it is shown only this once. Whoever holds it can act as ${secret.name ?? 'this client'}.
    </p>
    <dl class="facts">
      <dt>Client id</dt>
      <dd><code>${secret.clientId}</code></dd>
    </dl>
    <div class="field">
      <label for="client-secret">Client secret</label>
      <input id="client-secret" readonly value=${secret.clientSecret} onFocus=${(e) => e.target.select()} />
    </div>
    <div class="actions">
      <button type="button" onClick=${copy}>Copy secret</button>
      <button type="button" class="secondary" onClick=${onDismiss}>I have copied it</button>
    </div>
    <p role="status">${copied ?? ''}</p>
  </div>`
}
