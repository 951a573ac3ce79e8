// Admin › Webhooks: the subscription's webhook configurations (package tracking events), each with
// Edit and Delete, a new one, and per configuration its delivery log with a retry of failed
// deliveries and a test send.
import { useEffect, useState } from 'preact/hooks'
import { call, ApiError, WEBHOOKS } from '../api.js'
import { html, Alert, actionsOf, refusal, fmtTime } from '../ui.js'
import { useRows, RowsCard, RowActions, EditCard } from '../admin-kit.js'
import { WebhookFields, WEBHOOK_FIELDS, emptyWebhook, webhookValues, webhookBody } from './webhook-form.js'

const hook = (method, path, body) => call(method, `${WEBHOOKS}${path}`, body, { raw: true })

export function Webhooks() {
  const rows = useRows(() => hook('GET', '/api/v1/webhookConfig').then((r) => r.webhookConfigs))
  const { edit, remove, items: configs } = rows
  const [events, setEvents] = useState([])
  const [open, setOpen] = useState(null)
  const [form, setForm] = useState(emptyWebhook())
  const [formError, setFormError] = useState(null)
  const [created, setCreated] = useState(null)
  useEffect(() => {
    hook('GET', '/api/v1/events').then(
      (r) => setEvents(r.events),
      () => {},
    )
  }, [])

  const create = async (e) => {
    e.preventDefault()
    setFormError(null)
    setCreated(null)
    try {
      const res = await hook('POST', '/api/v1/webhookConfig', webhookBody(form))
      setCreated(res)
      setForm(emptyWebhook())
      await rows.reload()
    } catch (err) {
      setFormError(err)
    }
  }

  if (rows.error) return html`<${Alert} messages=${[refusal(rows.error)]} />`
  const err = formError instanceof ApiError ? formError : null
  const config = (configs ?? []).find((c) => c.webHookConfigID === edit.id)
  return html`<${RowsCard}
      titleId="wh-title"
      title="Webhook configurations"
      rows=${rows}
      keyOf=${(c) => c.webHookConfigID}
      columns=${[
        ['Name', (c) => c.name],
        ['URL', (c) => c.url],
        ['Status', (c) => `${c.status}${c.disabledReason ? ` (${c.disabledReason})` : ''}`],
        ['Events', (c) => c.events.join(', ')],
      ]}
      actions=${(c) =>
        html`<button
            type="button"
            class="link"
            aria-expanded=${open === c.webHookConfigID ? 'true' : 'false'}
            onClick=${() => setOpen(open === c.webHookConfigID ? null : c.webHookConfigID)}
          >
            Delivery log of ${c.name}
          </button>
          <${RowActions}
            name=${c.name}
            editing=${edit.id === c.webHookConfigID}
            onEdit=${() => edit.toggle(c.webHookConfigID)}
            onDelete=${() =>
              remove('webhook', c.name, () =>
                hook('DELETE', `/api/v1/webhookConfig/${encodeURIComponent(c.webHookConfigID)}`),
              )}
          />`}
    />
    ${
      config &&
      html`<${EditWebhook}
        key=${config.webHookConfigID}
        config=${config}
        events=${events}
        onDone=${edit.done}
        onCancel=${edit.cancel}
      />`
    }
    ${open && configs?.some((c) => c.webHookConfigID === open) && html`<${Deliveries} config=${configs.find((c) => c.webHookConfigID === open)} />`}
    <form class="card" novalidate onSubmit=${create} aria-labelledby="new-wh">
      <h2 id="new-wh">New webhook</h2>
      <${Alert} messages=${formError ? (err ? err.unclaimed(WEBHOOK_FIELDS) : [formError.message]) : []} />
      ${created && html`<${Alert} kind="info" messages=${[`Webhook ${created.name} created. Its signing secret, shown once: ${created.signingSecret}`]} />`}
      <${WebhookFields} values=${form} set=${setForm} err=${err} events=${events} prefix="wh" />
      <button type="submit">Create webhook</button>
    </form>`
}

/** Replaces the configuration (PUT takes the whole body); the API's refusals show under their field. */
function EditWebhook({ config, events, onDone, onCancel }) {
  const [values, setValues] = useState(webhookValues(config))
  const [error, setError] = useState(null)
  const [busy, setBusy] = useState(false)
  const save = async (e) => {
    e.preventDefault()
    setError(null)
    setBusy(true)
    try {
      await hook('PUT', `/api/v1/webhookConfig/${encodeURIComponent(config.webHookConfigID)}`, webhookBody(values))
      await onDone(`Webhook ${values.name} saved.`)
    } catch (err) {
      setError(err)
    } finally {
      setBusy(false)
    }
  }
  const err = error instanceof ApiError ? error : null
  return html`<${EditCard}
    titleId="edit-wh"
    title=${`Edit webhook ${config.name}`}
    onSubmit=${save}
    messages=${html`<${Alert} messages=${error ? (err ? err.unclaimed(WEBHOOK_FIELDS) : [error.message]) : []} />`}
    busy=${busy}
    onCancel=${onCancel}
  >
    <${WebhookFields} values=${values} set=${setValues} err=${err} events=${events} prefix="edit-wh" editing=${true} />
  </${EditCard}>`
}

function Deliveries({ config }) {
  const [deliveries, setDeliveries] = useState(null)
  const [error, setError] = useState(null)
  const [notice, setNotice] = useState(null)
  const base = `/api/v1/webhookConfig/${encodeURIComponent(config.webHookConfigID)}`
  const load = () => hook('GET', `${base}/deliveries?limit=50`).then((r) => setDeliveries(r.deliveries), setError)
  useEffect(() => void load(), [config.webHookConfigID])
  const act = actionsOf({ setError, setNotice, load })
  return html`<section class="card" aria-labelledby="log-title">
    <h2 id="log-title">Delivery log of ${config.name}</h2>
    <${Alert} messages=${error ? [refusal(error)] : []} />
    <${Alert} kind="info" messages=${notice ? [notice] : []} />
    <div class="actions">
      <button
        type="button"
        class="secondary"
        onClick=${act('Test notification queued.', () => hook('POST', `${base}/test`))}
      >
        Send a test
      </button>
      <button type="button" class="secondary" onClick=${() => void load()}>Refresh the log</button>
    </div>
    <table>
      <thead>
        <tr>
          <th scope="col">Event</th>
          <th scope="col">Status</th>
          <th scope="col">Attempts</th>
          <th scope="col">Last answer</th>
          <th scope="col">Created</th>
          <th scope="col">Action</th>
        </tr>
      </thead>
      <tbody>
        ${(deliveries ?? []).map(
          (d) =>
            html`<tr>
              <td>${d.eventName}</td>
              <td>${d.status}</td>
              <td>${d.attempts}</td>
              <td>${d.lastStatusCode ?? ''} ${d.lastError ?? ''}</td>
              <td>${fmtTime(d.createdAt)}</td>
              <td>
                ${
                  d.status !== 'delivered' &&
                  html`<button
                    type="button"
                    class="link"
                    onClick=${act('Retry queued.', () => hook('POST', `${base}/deliveries/${encodeURIComponent(d.deliveryId)}/retry`))}
                  >
                    Retry ${d.eventName} ${d.deliveryId}
                  </button>`
                }
              </td>
            </tr>`,
        )}
      </tbody>
    </table>
  </section>`
}
