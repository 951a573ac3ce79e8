// The admin's custom fields on Receive (issue 25 item 3): one control per ACTIVE definition, by its
// data type; required ones are checked before a save (the server checks them too: 400 naming
// package.customFields). Values are kept as the API takes them: strings, "true"/"false".
import { get } from '../api.js'
import { html, Field } from '../ui.js'

let loaded
/** The subscription's ACTIVE definitions, read once per page load (the admin screen changes them rarely). */
export function loadCustomFields({ fresh = false } = {}) {
  if (!loaded || fresh) loaded = get('/api/v1/customfields?status=ACTIVE&limit=200').then((r) => r.customFields)
  loaded.catch(() => (loaded = undefined))
  return loaded
}

/** A BOOLEAN starts as "false" (an unticked box is an answer); the others start empty. */
export const blankValues = (defs) =>
  Object.fromEntries(defs.map((d) => [d.customFieldId, d.dataType === 'BOOLEAN' ? 'false' : '']))

/** The required definitions without a value, by id → message (what the console refuses to save without). */
export function missingRequired(defs, values) {
  const out = {}
  for (const d of defs)
    if (d.required && !String(values[d.customFieldId] ?? '').trim()) out[d.customFieldId] = `${d.name} is required.`
  return out
}

/** missingRequired, with the focus moved to the first empty one (its control's id: `${prefix}-${customFieldId}`). */
export function refuseMissing(defs, values, prefix) {
  const missing = missingRequired(defs, values)
  const first = Object.keys(missing)[0]
  if (first) setTimeout(() => document.getElementById(`${prefix}-${first}`)?.focus(), 0)
  return missing
}

/** The body's package.customFields: every value given (empty ones are left out). */
export const customFieldsBody = (defs, values) =>
  defs
    .filter((d) => String(values[d.customFieldId] ?? '').trim() !== '')
    .map((d) => ({ customFieldId: d.customFieldId, value: String(values[d.customFieldId]).trim() }))

function control(d, value, set, a) {
  switch (d.dataType) {
    case 'LIST':
      return html`<select ...${a} value=${value} onChange=${(e) => set(e.target.value)}>
        <option value="">Choose…</option>
        ${(d.options ?? []).map((o) => html`<option value=${o}>${o}</option>`)}
      </select>`
    case 'BOOLEAN':
      return html`<select ...${a} value=${value} onChange=${(e) => set(e.target.value)}>
        <option value="false">No</option>
        <option value="true">Yes</option>
      </select>`
    case 'DATE':
      return html`<input ...${a} type="date" value=${value} onInput=${(e) => set(e.target.value)} />`
    case 'NUMBER':
      return html`<input
        ...${a}
        inputmode="decimal"
        autocomplete="off"
        value=${value}
        onInput=${(e) => set(e.target.value)}
      />`
    default:
      return html`<input ...${a} autocomplete="off" value=${value} onInput=${(e) => set(e.target.value)} />`
  }
}

/**
 * The controls, labelled with the field's name ("required" said in the label, not only by an
 * asterisk). `errors`: id → message (the console's own check); `serverErrors`: the API's messages
 * for package.customFields, shown under the group.
 */
export function CustomFieldInputs({
  defs,
  values,
  onChange,
  errors = {},
  serverErrors = [],
  prefix = 'cf',
  legend = 'More about this parcel',
}) {
  if (!defs.length) return null
  return html`<fieldset class="custom-fields">
    <legend>${legend}</legend>
    ${defs.map(
      (d) => html`<${Field}
        label=${`${d.name}${d.required ? ' (required)' : ''}`}
        id=${`${prefix}-${d.customFieldId}`}
        errors=${errors[d.customFieldId] ? [errors[d.customFieldId]] : []}
      >
        ${(a) => control(d, values[d.customFieldId] ?? '', (v) => onChange({ ...values, [d.customFieldId]: v }), { ...a, 'aria-required': d.required ? 'true' : undefined })}
      </${Field}>`,
    )}
    ${serverErrors.length > 0 && html`<p class="field-error" role="alert">${serverErrors.join(' ')}</p>`}
  </fieldset>`
}
