// Admin › Custom fields: the definitions (each with Edit and Delete), a new one. A LIST field takes
// its options as one line, comma-separated.
import { get, post, put, del } from '../api.js'
import { html, Field, Alert, refusal } from '../ui.js'
import { useForm, useList, useAction, useConfirm, RowActions, deleter, EditCard, useEditing } from '../admin-kit.js'
import { CUSTOM_FIELD_DATA_TYPES, CUSTOM_FIELD_STATUSES } from '../vocabulary.js'

const FIELDS = ['name', 'dataType', 'required', 'status', 'options']

const optionsOf = (text) =>
  text
    .split(',')
    .map((o) => o.trim())
    .filter(Boolean)

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
  ...(v.dataType === 'LIST' ? { options: optionsOf(v.options) } : {}),
})

export function CustomFields() {
  const fields = useList(() => get('/api/v1/customfields?limit=200').then((r) => r.customFields))
  const action = useAction()
  const edit = useEditing(fields.reload, action)
  const confirm = useConfirm()
  const remove = deleter({ confirm, action, reload: fields.reload })
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
  return html`<section class="card" aria-labelledby="cf-title">
      <h2 id="cf-title">Custom fields</h2>
      ${action.messages}
      <table>
        <thead>
          <tr>
            <th scope="col">Name</th>
            <th scope="col">Type</th>
            <th scope="col">Required</th>
            <th scope="col">Status</th>
            <th scope="col">Actions</th>
          </tr>
        </thead>
        <tbody>
          ${(fields.items ?? []).map(
            (f) =>
              html`<tr>
                <td>${f.name}</td>
                <td>${f.dataType}${f.options?.length ? ` (${f.options.join(', ')})` : ''}</td>
                <td>${f.required ? 'yes' : 'no'}</td>
                <td>${f.status}</td>
                <td>
                  <${RowActions}
                    name=${f.name}
                    editing=${edit.id === f.customFieldId}
                    onEdit=${() => edit.toggle(f.customFieldId)}
                    onDelete=${() => remove('custom field', f.name, () => del(`/api/v1/customfields/${f.customFieldId}`))}
                  />
                </td>
              </tr>`,
          )}
        </tbody>
      </table>
      ${confirm.dialog}
    </section>
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
