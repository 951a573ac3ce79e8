// Admin › Custom fields: the definitions (each with Edit and Delete), a new one. A LIST field takes
// its options as one line, comma-separated.
import { get, post, put, del } from '../api.js'
import { html, Field, Alert, refusal, commaList } from '../ui.js'
import { useForm, useRows, RowsCard, RowActions, EditCard } from '../admin-kit.js'
import { CUSTOM_FIELD_DATA_TYPES, CUSTOM_FIELD_STATUSES } from '../vocabulary.js'

const FIELDS = ['name', 'dataType', 'required', 'status', 'options']

/** The controls a definition has, on the new form and on the edit form alike. */
function DefinitionFields({ form, prefix }) {
  return html`<${Field} label="Field name" id=${`${prefix}-name`} errors=${form.errorsOf('name')}>${(a) => html`<input ...${a} ...${form.bind('name')} />`}</${Field}>
    <${Field} label="Data type" id=${`${prefix}-type`} errors=${form.errorsOf('dataType')}>${(a) =>
      html`<select ...${a} ...${form.pick('dataType')}>
        ${CUSTOM_FIELD_DATA_TYPES.map((t) => html`<option value=${t}>${t}</option>`)}
      </select>`}</${Field}>
    ${
      form.values.dataType === 'LIST' &&
      html`<${Field} label="Options" id=${`${prefix}-options`} hint="Comma-separated, e.g. Small, Medium, Large." errors=${form.errorsOf('options')}>${(a) => html`<input ...${a} ...${form.bind('options')} />`}</${Field}>`
    }
    <${Field} label="Status" id=${`${prefix}-status`} errors=${form.errorsOf('status')}>${(a) =>
      html`<select ...${a} ...${form.pick('status')}>
        ${CUSTOM_FIELD_STATUSES.map((t) => html`<option value=${t}>${t}</option>`)}
      </select>`}</${Field}>
    <label class="check"><input type="checkbox" ...${form.check('required')} /> Required</label>`
}

const bodyOf = (v) => ({
  name: v.name,
  dataType: v.dataType,
  required: v.required,
  status: v.status,
  ...(v.dataType === 'LIST' ? { options: commaList(v.options) } : {}),
})

export function CustomFields() {
  const fields = useRows(() => get('/api/v1/customfields?limit=200').then((r) => r.customFields))
  const { edit, remove } = fields
  const form = useForm(
    { name: '', dataType: 'TEXT', required: false, status: 'ACTIVE', options: '' },
    async (v) => {
      await post('/api/v1/customfields', bodyOf(v))
      await fields.reload()
      return `Field ${v.name} created.`
    },
    FIELDS,
  )
  if (fields.error) return html`<${Alert} messages=${[refusal(fields.error)]} />`
  const field = (fields.items ?? []).find((f) => f.customFieldId === edit.id)
  return html`<${RowsCard}
      titleId="cf-title"
      title="Custom fields"
      rows=${fields}
      keyOf=${(f) => f.customFieldId}
      columns=${[
        ['Name', (f) => f.name],
        ['Type', (f) => `${f.dataType}${f.options?.length ? ` (${f.options.join(', ')})` : ''}`],
        ['Required', (f) => (f.required ? 'yes' : 'no')],
        ['Status', (f) => f.status],
      ]}
      actions=${(f) =>
        html`<${RowActions}
          name=${f.name}
          editing=${edit.id === f.customFieldId}
          onEdit=${() => edit.toggle(f.customFieldId)}
          onDelete=${() => remove('custom field', f.name, () => del(`/api/v1/customfields/${f.customFieldId}`))}
        />`}
    />
    ${
      field &&
      html`<${EditDefinition} key=${field.customFieldId} field=${field} onDone=${edit.done} onCancel=${edit.cancel} />`
    }
    <form class="card" novalidate onSubmit=${form.onSubmit} aria-labelledby="new-cf">
      <h2 id="new-cf">New custom field</h2>
      ${form.messages}
      <${DefinitionFields} form=${form} prefix="cf" />
      <button type="submit" disabled=${form.busy}>Create field</button>
    </form>`
}

function EditDefinition({ field, onDone, onCancel }) {
  const form = useForm(
    {
      name: field.name,
      dataType: field.dataType,
      required: field.required,
      status: field.status,
      options: (field.options ?? []).join(', '),
    },
    async (v) => {
      await put(`/api/v1/customfields/${field.customFieldId}`, bodyOf(v))
      await onDone(`Field ${v.name} saved.`)
    },
    FIELDS,
  )
  return html`<${EditCard}
    titleId="edit-cf"
    title=${`Edit custom field ${field.name}`}
    onSubmit=${form.onSubmit}
    messages=${form.messages}
    busy=${form.busy}
    onCancel=${onCancel}
  >
    <${DefinitionFields} form=${form} prefix="edit-cf" />
  </${EditCard}>`
}
