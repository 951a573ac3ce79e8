// Admin › Notifications › Texts (issue 29): the facility's SMS provider (Messages API or SMPP), which
// channels recipients may have and what each kind uses by default, quiet hours; and one recipient's
// channels and consent to texts, recorded with where it was given. The secret is write-only.
import { useState } from 'preact/hooks'
import { get, put, ApiError } from '../api.js'
import { html, Field, Alert, refusal, fmtTime } from '../ui.js'
import { fieldErrors, useSettings } from '../admin-kit.js'

const KINDS = [
  ['ARRIVAL', 'Arrival'],
  ['REMINDER', 'Reminder'],
  ['FINAL_NOTICE', 'Final notice'],
  ['PICKED_UP', 'Receipt'],
]
const CHANNELS = [
  ['email', 'Email'],
  ['sms', 'Text'],
]
const PROVIDERS = [
  ['none', 'None: no texts'],
  ['messages', 'Messages API (Twilio, SignalWire, …)'],
  ['smpp', 'SMPP 3.4 (an SMSC)'],
]

const formOf = (s) => ({
  provider: s.provider,
  url: s.url ?? '',
  account: s.account ?? '',
  from: s.from ?? '',
  senderName: s.senderName ?? '',
  secret: '',
  secretSet: s.secretSet,
  channels: s.channels,
  quietStart: s.quietHours?.start ?? '',
  quietEnd: s.quietHours?.end ?? '',
  inboundUrl: s.inboundUrl,
  statusUrl: s.statusUrl,
})

/** The API's body: blanks left out (the API names what is missing), the secret only when typed. */
function bodyOf(v) {
  const opt = (k) => (v[k].trim() ? { [k]: v[k].trim() } : {})
  return {
    provider: v.provider,
    ...(v.provider === 'none' ? {} : { ...opt('url'), ...opt('account'), ...opt('from'), ...opt('secret') }),
    ...opt('senderName'),
    channels: v.channels,
    quietHours: v.quietStart || v.quietEnd ? { start: v.quietStart, end: v.quietEnd } : null,
  }
}

const errorsAt = fieldErrors
const toggle = (list, c, on) => (on ? [...new Set([...list, c])] : list.filter((x) => x !== c))

export function SmsSettings() {
  const {
    values: v,
    setValues: setV,
    loadError,
    error,
    done,
    busy,
    save,
  } = useSettings('/api/v1/notifications/sms/settings', { formOf, bodyOf, saved: 'Text settings saved.' })
  if (loadError) return html`<${Alert} messages=${[refusal(loadError)]} />`
  if (!v) return html`<p role="status">Loading the text settings…</p>`
  const set = (k) => (e) => setV({ ...v, [k]: e.target.value })
  const setAllowed = (c) => (e) =>
    setV({ ...v, channels: { ...v.channels, allowed: toggle(v.channels.allowed, c, e.target.checked) } })
  const setDefault = (kind, c) => (e) =>
    setV({
      ...v,
      channels: {
        ...v.channels,
        defaults: { ...v.channels.defaults, [kind]: toggle(v.channels.defaults[kind] ?? [], c, e.target.checked) },
      },
    })
  const known = ['provider', 'url', 'account', 'from', 'secret', 'senderName', 'channels', 'quietHours']
  const top = error
    ? error instanceof ApiError && error.items.length > 0
      ? error.items.filter((i) => !known.some((k) => i.field === k)).map((i) => `${i.field}: ${i.message}`)
      : [refusal(error)]
    : []
  const text = (k, label, hint, extra = {}) =>
    html`<${Field} label=${label} id=${`sms-${k}`} hint=${hint} errors=${errorsAt(error, k)}>${(a) =>
      html`<input
        ...${a}
        ...${extra}
        autocomplete="off"
        spellcheck="false"
        value=${v[k]}
        onInput=${set(k)}
      />`}</${Field}>`
  return html`<form class="card settings" novalidate onSubmit=${save} aria-labelledby="sms-title">
    <h2 id="sms-title">Text messages (SMS)</h2>
    <${Alert} messages=${top} />
    <${Alert} kind="info" messages=${done ? [done] : []} />
    <${Field} label="Provider" id="sms-provider" errors=${errorsAt(error, 'provider')}>${(a) =>
      html`<select ...${a} value=${v.provider} onChange=${set('provider')}>
        ${PROVIDERS.map(([p, l]) => html`<option value=${p}>${l}</option>`)}
      </select>`}</${Field}>
    ${
      v.provider !== 'none' &&
      html`${text('url', 'URL', v.provider === 'smpp' ? 'smpp://host:2775 or ssmpp://host:3550' : 'The API base your provider gives, ending /2010-04-01 (docs/sms.md)')}
      ${text('account', v.provider === 'smpp' ? 'System id' : 'Account SID / project id')}
      ${text('secret', v.provider === 'smpp' ? 'Password' : 'Auth token', v.secretSet ? 'Stored; type a new one to replace it.' : 'Required.', { type: 'password' })}
      ${text('from', 'Sender', 'A number in E.164 (+15551234567) or a sender id.')}
      ${
        v.provider === 'messages' &&
        html`<p class="hint">
          Give the provider this URL for incoming messages: <code>${v.inboundUrl}</code>. Receipts come to
          <code>${v.statusUrl}</code>.
        </p>`
      }`
    }
    ${text('senderName', 'Facility name in replies', 'How the answers to STOP, START and HELP begin.')}
    <fieldset>
      <legend>Channels</legend>
      <p class="hint">A recipient gets texts only once they opted in, and never after replying STOP; with no channel left they are emailed.</p>
      ${CHANNELS.map(
        ([c, l]) =>
          html`<label class="check"
            ><input
              type="checkbox"
              id=${`sms-allow-${c}`}
              checked=${v.channels.allowed.includes(c)}
              onChange=${setAllowed(c)}
            />
            ${l} allowed</label
          >`,
      )}
      <${Alert} messages=${errorsAt(error, 'channels')} />
      <table>
        <caption>Default channels per kind (a recipient's own choice wins)</caption>
        <thead><tr><th scope="col">Kind</th>${CHANNELS.map(([, l]) => html`<th scope="col">${l}</th>`)}</tr></thead>
        <tbody>
          ${KINDS.map(
            ([k, l]) =>
              html`<tr>
                <th scope="row">${l}</th>
                ${CHANNELS.map(
                  ([c, cl]) =>
                    html`<td>
                      <input
                        type="checkbox"
                        aria-label=${`${l} by ${cl}`}
                        checked=${(v.channels.defaults[k] ?? []).includes(c)}
                        onChange=${setDefault(k, c)}
                      />
                    </td>`,
                )}
              </tr>`,
          )}
        </tbody>
      </table>
    </fieldset>
    <fieldset>
      <legend>Quiet hours</legend>
      <p class="hint">Texts due between these times (the site's local time) wait until the end. Both empty: none.</p>
      ${text('quietStart', 'From (HH:MM)', '', { inputmode: 'numeric', placeholder: '21:00' })}
      ${text('quietEnd', 'Until (HH:MM)', '', { inputmode: 'numeric', placeholder: '08:00' })}
      <${Alert} messages=${errorsAt(error, 'quietHours')} />
    </fieldset>
    <div class="actions"><button type="submit" disabled=${busy}>Save text settings</button></div>
  </form>
  <${RecipientTexts} />`
}

/** One recipient's channels and consent, by contact id (the contact's page shows the id). */
function RecipientTexts() {
  const [contactId, setContactId] = useState('')
  const [r, setR] = useState(null)
  const [source, setSource] = useState('')
  const [error, setError] = useState(null)
  const [done, setDone] = useState(null)
  const load = async (e) => {
    e.preventDefault()
    setError(null)
    setDone(null)
    try {
      setR(await get(`/api/v1/notifications/recipients/${encodeURIComponent(contactId.trim())}/channels`))
    } catch (err) {
      setR(null)
      setError(err)
    }
  }
  const save = async (optedIn, kinds = r.kinds) => {
    setError(null)
    setDone(null)
    try {
      const body = { kinds, sms: { optedIn, ...(source.trim() ? { source: source.trim() } : {}) } }
      setR(await put(`/api/v1/notifications/recipients/${encodeURIComponent(r.contactId)}/channels`, body))
      setDone('Saved.')
    } catch (err) {
      setError(err)
    }
  }
  const setKind = (k, c) => (e) =>
    save(r.sms.optedIn, { ...r.kinds, [k]: toggle(r.kinds[k] ?? [], c, e.target.checked) })
  return html`<section class="card" aria-labelledby="sms-recipient-title">
    <h2 id="sms-recipient-title">A recipient's texts</h2>
    <form onSubmit=${load} class="inline">
      <${Field} label="Contact id" id="sms-contact">${(a) =>
        html`<input
          ...${a}
          autocomplete="off"
          value=${contactId}
          onInput=${(e) => setContactId(e.target.value)}
        />`}</${Field}>
      <button type="submit">Show</button>
    </form>
    <${Alert} messages=${error ? (error instanceof ApiError && error.items.length ? error.items.map((i) => i.message) : [refusal(error)]) : []} />
    <${Alert} kind="info" messages=${done ? [done] : []} />
    ${
      r &&
      html`<p>
          Phone: ${r.sms.phone ?? 'none usable'}.
          ${r.sms.optedIn ? `Opted in ${fmtTime(r.sms.optedInAt)} (${r.sms.source}).` : 'Not opted in.'}
          ${r.sms.stopped ? ` Replied STOP ${fmtTime(r.sms.stopChangedAt)}: no texts until they reply START.` : ''}
        </p>
        ${
          r.sms.optedIn
            ? html`<button type="button" class="secondary" onClick=${() => save(false)}>Record opt-out</button>`
            : html`<${Field} label="Where consent was given" id="sms-source" hint="e.g. signed form at the desk">${(
                a,
              ) => html`<input ...${a} value=${source} onInput=${(e) => setSource(e.target.value)} />`}</${Field}>
            <button type="button" onClick=${() => save(true)}>Record opt-in</button>`
        }
        <table>
          <caption>
            This recipient's channels (none ticked: the facility's default)
          </caption>
          <tbody>
            ${KINDS.map(
              ([k, l]) =>
                html`<tr>
                  <th scope="row">${l}</th>
                  ${CHANNELS.map(
                    ([c, cl]) =>
                      html`<td>
                        <label class="check"
                          ><input type="checkbox" checked=${(r.kinds[k] ?? []).includes(c)} onChange=${setKind(k, c)} />
                          ${cl}</label
                        >
                      </td>`,
                  )}
                </tr>`,
            )}
          </tbody>
        </table>`
    }
  </section>`
}
