// The controls of a webhook configuration, the same on the new form and on the edit form: name,
// URL, events, timeout, status and how the receiver is authenticated. Secrets come back masked
// (`****abcd`): sent back unchanged they keep the stored one, but a new URL needs the secret itself
// (the API answers 400 naming the secret's field, shown under it).
import { html, Field } from '../ui.js'

const AUTH_TYPES = [
  ['none', 'None'],
  ['custom', 'API key in a header'],
  ['basic', 'Basic (username and password)'],
  ['oauth2', 'OAuth 2 client credentials'],
]
/** Per auth type, its parameters: [API name, label, secret?]. */
const AUTH_PARAMS = {
  none: [],
  custom: [
    ['headerName', 'Header name', false],
    ['apiKey', 'API key', true],
  ],
  basic: [
    ['username', 'Username', false],
    ['password', 'Password', true],
  ],
  oauth2: [
    ['tokenUrl', 'Token URL', false],
    ['clientId', 'Client id', false],
    ['clientSecret', 'Client secret', true],
    ['scope', 'Scope (optional)', false],
  ],
}
const ALL_PARAMS = [...new Set(Object.values(AUTH_PARAMS).flatMap((p) => p.map(([k]) => k)))]

/** Fields of the API's errors[] that the form shows next to a control. */
export const WEBHOOK_FIELDS = ['name', 'url', 'events', 'timeOut', 'status', 'authParams']

export const emptyWebhook = () => ({
  name: '',
  url: '',
  events: new Set(),
  timeOut: '5',
  status: 'active',
  auth: { authType: 'none' },
})

/** A configuration as the API answered it, as the form holds it. */
export const webhookValues = (c) => ({
  name: c.name,
  url: c.url,
  events: new Set(c.events),
  timeOut: String(c.timeOut),
  status: c.status,
  auth: { ...c.authParams },
})

/** The form's values as the API takes them (create and replace take the same body). */
export function webhookBody(v) {
  const params = Object.fromEntries(
    (AUTH_PARAMS[v.auth.authType] ?? [])
      .map(([k]) => [k, (v.auth[k] ?? '').trim()])
      .filter(([, value]) => value !== ''),
  )
  return {
    name: v.name,
    type: 'tracking',
    events: [...v.events],
    url: v.url,
    timeOut: Number(v.timeOut) || 5,
    status: v.status,
    authParams: { authType: v.auth.authType, ...params },
  }
}

export function WebhookFields({ values, set, err, events, prefix, editing }) {
  const errorsOf = (name) => err?.forField(name) ?? []
  const eventErrors = errorsOf('events')
  const setAuth = (k, value) => set({ ...values, auth: { ...values.auth, [k]: value } })
  return html`<${Field} label="Webhook name" id=${`${prefix}-name`} errors=${errorsOf('name')}>
      ${(a) => html`<input ...${a} value=${values.name} onInput=${(e) => set({ ...values, name: e.target.value })} />`}
    </${Field}>
    <${Field} label="URL" id=${`${prefix}-url`} errors=${errorsOf('url')}>
      ${(a) => html`<input ...${a} type="url" value=${values.url} onInput=${(e) => set({ ...values, url: e.target.value })} />`}
    </${Field}>
    <fieldset>
      <legend>Events</legend>
      ${eventErrors.length > 0 && html`<p class="field-error" role="alert">${eventErrors.join(' ')}</p>`}
      ${events.map(
        (ev) =>
          html`<label class="check"
            ><input
              type="checkbox"
              checked=${values.events.has(ev.eventName)}
              onChange=${(e) => {
                const next = new Set(values.events)
                if (e.target.checked) next.add(ev.eventName)
                else next.delete(ev.eventName)
                set({ ...values, events: next })
              }}
            />
            ${ev.eventName}</label
          >`,
      )}
    </fieldset>
    <${Field} label="Timeout (seconds)" id=${`${prefix}-timeout`} errors=${errorsOf('timeOut')}>
      ${(a) =>
        html`<input
          ...${a}
          type="number"
          min="1"
          max="30"
          class="narrow"
          value=${values.timeOut}
          onInput=${(e) => set({ ...values, timeOut: e.target.value })}
        />`}
    </${Field}>
    ${
      editing &&
      html`<${Field} label="Status" id=${`${prefix}-status`} errors=${errorsOf('status')}>
        ${(a) =>
          html`<select ...${a} value=${values.status} onChange=${(e) => set({ ...values, status: e.target.value })}>
            <option value="active">active</option>
            <option value="in-active">in-active (sends nothing)</option>
          </select>`}
      </${Field}>`
    }
    <${Field} label="Authentication" id=${`${prefix}-auth`} errors=${errorsOf('authParams.authType')}>
      ${(a) =>
        html`<select
          ...${a}
          value=${values.auth.authType}
          onChange=${(e) =>
            set({
              ...values,
              auth: { authType: e.target.value, ...Object.fromEntries(ALL_PARAMS.map((k) => [k, values.auth[k]])) },
            })}
        >
          ${AUTH_TYPES.map(([value, label]) => html`<option value=${value}>${label}</option>`)}
        </select>`}
    </${Field}>
    ${(AUTH_PARAMS[values.auth.authType] ?? []).map(
      ([k, label, secret]) =>
        html`<${Field}
          label=${label}
          id=${`${prefix}-${k}`}
          errors=${errorsOf(`authParams.${k}`)}
          hint=${secret && editing ? 'Shown masked. Leave it to keep the stored secret; a new URL needs the secret typed again.' : undefined}
        >
          ${(a) =>
            html`<input
              ...${a}
              autocomplete="off"
              spellcheck="false"
              value=${values.auth[k] ?? ''}
              onInput=${(e) => setAuth(k, e.target.value)}
            />`}
        </${Field}>`,
    )}`
}
