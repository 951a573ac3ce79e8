// Admin › Notifications: whether and when recipients are emailed, and what the emails say. The
// templates of one kind at a time (in the settings' language; other languages' are kept as they
// are), with a preview the server renders from a sample parcel by the renderer that sends them.
import { useRef, useState } from 'preact/hooks'
import { post, ApiError } from '../api.js'
import { fieldErrors, useSettings } from '../admin-kit.js'
import { html, Field, Alert, refusal } from '../ui.js'
import { RenderedHtml } from '../email-preview.js'
import { SmsSettings } from './admin-sms.js'

const KINDS = [
  ['ARRIVAL', 'Arrival'],
  ['REMINDER', 'Reminder'],
  ['FINAL_NOTICE', 'Final notice'],
  ['PICKED_UP', 'Picked up (receipt)'],
]
const PARTS = [
  ['subject', 'Subject'],
  ['text', 'Plain text'],
  ['html', 'HTML'],
]

/** The form's values from the API's settings: numbers as the clerk types them, hours as a list. */
const formOf = (s) => ({
  enabled: s.enabled,
  arrivalBatchSeconds: String(s.arrivalBatchSeconds),
  reminderAfterHours: s.reminderAfterHours.join(', '),
  finalNoticeAfterHours: s.finalNoticeAfterHours === null ? '' : String(s.finalNoticeAfterHours),
  language: s.language ?? 'en',
  templates: s.templates ?? {},
})

// A value the browser cannot read as a number goes as typed: the API's 400 names the field.
const num = (v) => (v.trim() !== '' && Number.isFinite(Number(v)) ? Number(v) : v)

/** The API's body from the form: an emptied template part is left out (the shipped one applies). */
function settingsOf(v) {
  const templates = { ...v.templates }
  for (const [kind] of KINDS) {
    const parts = Object.fromEntries(Object.entries(templates[kind] ?? {}).filter(([, x]) => x.trim() !== ''))
    if (Object.keys(parts).length > 0) templates[kind] = parts
    else delete templates[kind]
  }
  return {
    enabled: v.enabled,
    arrivalBatchSeconds: num(v.arrivalBatchSeconds),
    reminderAfterHours: v.reminderAfterHours
      .split(/[,;\s]+/)
      .filter(Boolean)
      .map(num),
    finalNoticeAfterHours: v.finalNoticeAfterHours.trim() === '' ? null : num(v.finalNoticeAfterHours),
    language: v.language.trim(),
    templates,
  }
}

/** The API's messages for a field (arrays are named `reminderAfterHours[1]` or `/1`). */
const errorsAt = fieldErrors

export function NotificationSettings() {
  const { values, setValues, loadError, error, done, setDone, busy, run, save } = useSettings(
    '/api/v1/notifications/settings',
    { formOf, bodyOf: settingsOf, saved: 'Notification settings saved.' },
  )
  const [kind, setKind] = useState('ARRIVAL')
  const [preview, setPreview] = useState(null)
  const previewRef = useRef(null)
  if (loadError) return html`<${Alert} messages=${[refusal(loadError)]} />`
  if (!values) return html`<p role="status">Loading the notification settings…</p>`

  const set = (k) => (e) =>
    setValues({ ...values, [k]: e.target.type === 'checkbox' ? e.target.checked : e.target.value })
  const setPart = (part) => (e) =>
    setValues({
      ...values,
      templates: { ...values.templates, [kind]: { ...values.templates[kind], [part]: e.target.value } },
    })
  const known = ['enabled', 'arrivalBatchSeconds', 'reminderAfterHours', 'finalNoticeAfterHours', 'language']
  const claimed = (i) =>
    known.some((k) => i.field === k || i.field.startsWith(`${k}[`) || i.field.startsWith(`${k}/`)) ||
    i.field.startsWith(`templates.${kind}.`)
  const top = error
    ? error instanceof ApiError
      ? error.items.length === 0
        ? [refusal(error)]
        : error.items.filter((i) => !claimed(i)).map((i) => (i.field ? `${i.field}: ${i.message}` : i.message))
      : [refusal(error)]
    : []
  const showPreview = () =>
    run(async () => {
      setPreview(await post(`/api/v1/notifications/settings/preview?kind=${kind}`, settingsOf(values)))
      setDone(null)
      // The preview is below the form: the focus goes to it, so a screen reader reads it next.
      window.requestAnimationFrame(() => previewRef.current?.focus())
    })
  const shown = values.templates[kind] ?? {}
  return html`<form class="card settings" novalidate onSubmit=${save} aria-labelledby="notif-title">
      <h2 id="notif-title">Notification emails</h2>
      <${Alert} messages=${top} />
      <${Alert} kind="info" messages=${done ? [done] : []} />
      <label class="check"><input type="checkbox" id="notif-enabled" checked=${values.enabled} onChange=${set('enabled')} /> Send notification emails</label>
      <${Field} label="Group arrivals within (seconds)" id="notif-batch" hint="Parcels for one recipient within this time share one email; 0 sends each at once." errors=${errorsAt(error, 'arrivalBatchSeconds')}>${(
        a,
      ) =>
        html`<input
          ...${a}
          inputmode="numeric"
          value=${values.arrivalBatchSeconds}
          onInput=${set('arrivalBatchSeconds')}
        />`}</${Field}>
      <${Field} label="Reminders after (hours)" id="notif-reminders" hint="Hours after the arrival email, ascending, separated by commas (e.g. 24, 72); empty: no reminders." errors=${errorsAt(error, 'reminderAfterHours')}>${(
        a,
      ) =>
        html`<input
          ...${a}
          inputmode="decimal"
          value=${values.reminderAfterHours}
          onInput=${set('reminderAfterHours')}
        />`}</${Field}>
      <${Field} label="Final notice after (hours)" id="notif-final" hint="Before the parcel goes back to the sender; empty: none." errors=${errorsAt(error, 'finalNoticeAfterHours')}>${(
        a,
      ) =>
        html`<input
          ...${a}
          inputmode="decimal"
          value=${values.finalNoticeAfterHours}
          onInput=${set('finalNoticeAfterHours')}
        />`}</${Field}>
      <${Field} label="Email language" id="notif-language" hint="en, fr…: the language of these templates; a contact's own language wins." errors=${errorsAt(error, 'language')}>${(
        a,
      ) =>
        html`<input
          ...${a}
          autocomplete="off"
          spellcheck="false"
          value=${values.language}
          onInput=${set('language')}
        />`}</${Field}>
      <fieldset class="templates">
        <legend>Templates</legend>
        <p class="hint">Mustache: {{recipientName}}, {{#packages}}…{{/packages}} and the others of docs/notifications.md. An empty part uses the shipped text.</p>
        <${Field} label="Which email" id="notif-kind">${(a) =>
          html`<select ...${a} value=${kind} onChange=${(e) => (setKind(e.target.value), setPreview(null))}>
            ${KINDS.map(([k, l]) => html`<option value=${k}>${l}</option>`)}
          </select>`}</${Field}>
        ${PARTS.map(
          ([part, label]) =>
            html`<${Field} label=${`${label} template`} id=${`notif-${part}`} errors=${errorsAt(error, `templates.${kind}.${part}`)}>${(
              a,
            ) =>
              part === 'subject'
                ? html`<input ...${a} value=${shown[part] ?? ''} onInput=${setPart(part)} />`
                : html`<textarea
                    ...${a}
                    rows=${part === 'html' ? 6 : 5}
                    value=${shown[part] ?? ''}
                    onInput=${setPart(part)}
                  ></textarea>`}</${Field}>`,
        )}
      </fieldset>
      <div class="actions">
        <button type="button" class="secondary" disabled=${busy} onClick=${showPreview}>Preview</button>
        <button type="submit" disabled=${busy}>Save settings</button>
      </div>
    </form>
    ${
      preview &&
      html`<section class="card preview" aria-labelledby="preview-title" tabindex="-1" ref=${previewRef}>
        <h2 id="preview-title">Preview: ${KINDS.find(([k]) => k === preview.kind)?.[1]} (${preview.language})</h2>
        <p><strong>Subject:</strong> <span class="preview-subject">${preview.subject}</span></p>
        <h3>Plain text</h3>
        <pre class="preview-text">${preview.text}</pre>
        <h3>HTML</h3>
        <${RenderedHtml} html=${preview.html} />
        <details>
          <summary>HTML part (source)</summary>
          <pre class="preview-html">${preview.html}</pre>
        </details>
      </section>`
    }
    <${SmsSettings} />`
}
