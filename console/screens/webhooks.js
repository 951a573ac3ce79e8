// Admin › Webhooks: the subscription's webhook configurations (package tracking events), a new
// one, and per configuration its delivery log with a retry of failed deliveries and a test send.
import { useEffect, useState } from 'preact/hooks'
import { call, ApiError, WEBHOOKS } from '../api.js'
import { html, Field, Alert, refusal, fmtTime } from '../ui.js'

const hook = (method, path, body) => call(method, `${WEBHOOKS}${path}`, body, { raw: true })

export function Webhooks() {
  const [configs, setConfigs] = useState(null)
  const [events, setEvents] = useState([])
  const [error, setError] = useState(null)
  const [open, setOpen] = useState(null)
  const [form, setForm] = useState({ name: '', url: '', events: new Set(), timeOut: '5' })
  const [formError, setFormError] = useState(null)
  const [created, setCreated] = useState(null)
  const load = () => hook('GET', '/api/v1/webhookConfig').then((r) => setConfigs(r.webhookConfigs), setError)
  useEffect(() => {
    void load()
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
      const res = await hook('POST', '/api/v1/webhookConfig', {
        name: form.name,
        type: 'tracking',
        events: [...form.events],
        url: form.url,
        timeOut: Number(form.timeOut) || 5,
        status: 'active',
        authParams: { authType: 'none' },
      })
      setCreated(res)
      setForm({ name: '', url: '', events: new Set(), timeOut: '5' })
      await load()
    } catch (err) {
      setFormError(err)
    }
  }

  if (error) return html`<${Alert} messages=${[refusal(error)]} />`
  const err = formError instanceof ApiError ? formError : null
  return html`<section class="card" aria-labelledby="wh-title">
      <h2 id="wh-title">Webhook configurations</h2>
      <table>
        <thead><tr><th scope="col">Name</th><th scope="col">URL</th><th scope="col">Status</th><th scope="col">Events</th><th scope="col">Log</th></tr></thead>
        <tbody>${(configs ?? []).map(
          (c) =>
            html`<tr>
              <td>${c.name}</td>
              <td>${c.url}</td>
              <td>${c.status}${c.disabledReason ? ` (${c.disabledReason})` : ''}</td>
              <td>${c.events.join(', ')}</td>
              <td>
                <button
                  type="button"
                  class="link"
                  aria-expanded=${open === c.webHookConfigID ? 'true' : 'false'}
                  onClick=${() => setOpen(open === c.webHookConfigID ? null : c.webHookConfigID)}
                >
                  Delivery log of ${c.name}
                </button>
              </td>
            </tr>`,
        )}</tbody>
      </table>
    </section>
    ${open && html`<${Deliveries} config=${configs.find((c) => c.webHookConfigID === open)} />`}
    <form class="card" novalidate onSubmit=${create} aria-labelledby="new-wh">
      <h2 id="new-wh">New webhook</h2>
      <${Alert} messages=${formError ? (err ? err.unclaimed(['name', 'url', 'events', 'timeOut']) : [formError.message]) : []} />
      ${created && html`<${Alert} kind="info" messages=${[`Webhook ${created.name} created. Its signing secret, shown once: ${created.signingSecret}`]} />`}
      <${Field} label="Webhook name" id="wh-name" errors=${err?.forField('name') ?? []}>
        ${(a) => html`<input ...${a} value=${form.name} onInput=${(e) => setForm({ ...form, name: e.target.value })} />`}
      </${Field}>
      <${Field} label="URL" id="wh-url" errors=${err?.forField('url') ?? []}>
        ${(a) => html`<input ...${a} type="url" value=${form.url} onInput=${(e) => setForm({ ...form, url: e.target.value })} />`}
      </${Field}>
      <fieldset>
        <legend>Events</legend>
        ${err?.forField('events').length > 0 && html`<p class="field-error" role="alert">${err.forField('events').join(' ')}</p>`}
        ${events.map(
          (ev) =>
            html`<label class="check"
              ><input
                type="checkbox"
                checked=${form.events.has(ev.eventName)}
                onChange=${(e) => {
                  const next = new Set(form.events)
                  if (e.target.checked) next.add(ev.eventName)
                  else next.delete(ev.eventName)
                  setForm({ ...form, events: next })
                }}
              />
              ${ev.eventName}</label
            >`,
        )}
      </fieldset>
      <${Field} label="Timeout (seconds)" id="wh-timeout" errors=${err?.forField('timeOut') ?? []}>
        ${(a) =>
          html`<input
            ...${a}
            type="number"
            min="1"
            max="30"
            class="narrow"
            value=${form.timeOut}
            onInput=${(e) => setForm({ ...form, timeOut: e.target.value })}
          />`}
      </${Field}>
      <button type="submit">Create webhook</button>
    </form>`
}

function Deliveries({ config }) {
  const [deliveries, setDeliveries] = useState(null)
  const [error, setError] = useState(null)
  const [notice, setNotice] = useState(null)
  const base = `/api/v1/webhookConfig/${encodeURIComponent(config.webHookConfigID)}`
  const load = () => hook('GET', `${base}/deliveries?limit=50`).then((r) => setDeliveries(r.deliveries), setError)
  useEffect(() => void load(), [config.webHookConfigID])
  const act = (what, fn) => async () => {
    setError(null)
    setNotice(null)
    try {
      await fn()
      setNotice(what)
      await load()
    } catch (err) {
      setError(err)
    }
  }
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
