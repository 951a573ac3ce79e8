// Admin › Carriers: the catalogue (the built-in carriers and the subscription's own couriers, each
// of these with Edit and Delete) and a new courier. Built-in carriers are shared: the API refuses to
// change them, so they have no actions here. A courier that packages name cannot be deleted (the API
// says so, shown above the table): rename it instead.
import { get, post, put, del } from '../api.js'
import { html, Field, Alert, refusal, commaList } from '../ui.js'
import { useForm, useRows, RowsCard, RowActions, EditCard } from '../admin-kit.js'

const FIELDS = ['name', 'services', 'barcodeAware']

/** The body of a create or a change: services as one comma-separated line. */
const bodyOf = (v) => ({ name: v.name, barcodeAware: v.barcodeAware, services: commaList(v.services) })

/** The controls a courier has, on the new form and on the edit form alike. */
function CourierFields({ form, prefix }) {
  return html`<${Field} label="Courier name" id=${`${prefix}-name`} errors=${form.errorsOf('name')}>${(a) => html`<input ...${a} ...${form.bind('name')} />`}</${Field}>
    <${Field} label="Services" id=${`${prefix}-services`} hint="Comma-separated, e.g. Same day, Next day." errors=${form.errorsOf('services')}>${(a) => html`<input ...${a} ...${form.bind('services')} />`}</${Field}>
    <label class="check"><input type="checkbox" ...${form.check('barcodeAware')} /> Its barcodes are decoded</label>`
}

export function Carriers() {
  const carriers = useRows(() => get('/api/v1/carriers/catalog?limit=200').then((r) => r.carriers))
  const { edit, remove } = carriers
  const form = useForm(
    { name: '', services: '', barcodeAware: false },
    async (v) => {
      await post('/api/v1/carriers/catalog', bodyOf(v))
      await carriers.reload()
      return `Courier ${v.name} added.`
    },
    FIELDS,
  )
  if (carriers.error) return html`<${Alert} messages=${[refusal(carriers.error)]} />`
  const courier = (carriers.items ?? []).find((c) => c.carrierId === edit.id)
  return html`<${RowsCard}
      titleId="car-title"
      title="Carriers"
      rows=${carriers}
      keyOf=${(c) => c.carrierId}
      columns=${[
        ['Carrier', (c) => c.name],
        ['SCAC', (c) => c.scac ?? ''],
        ['Barcodes decoded', (c) => (c.barcodeAware ? 'yes' : 'no')],
        ['Services', (c) => c.services.slice(0, 4).join(', ')],
        ['Kind', (c) => (c.builtIn ? 'built in' : 'own courier')],
      ]}
      actions=${(c) =>
        !c.builtIn &&
        html`<${RowActions}
          name=${c.name}
          editing=${edit.id === c.carrierId}
          onEdit=${() => edit.toggle(c.carrierId)}
          onDelete=${() => remove('courier', c.name, () => del(`/api/v1/carriers/catalog/${c.carrierId}`))}
        />`}
    />
    ${
      courier &&
      html`<${EditCourier} key=${courier.carrierId} courier=${courier} onDone=${edit.done} onCancel=${edit.cancel} />`
    }
    <form class="card" novalidate onSubmit=${form.onSubmit} aria-labelledby="new-courier">
      <h2 id="new-courier">New courier</h2>
      ${form.messages}
      <${CourierFields} form=${form} prefix="courier" />
      <button type="submit" disabled=${form.busy}>Add courier</button>
    </form>`
}

function EditCourier({ courier, onDone, onCancel }) {
  const form = useForm(
    { name: courier.name, services: courier.services.join(', '), barcodeAware: courier.barcodeAware },
    async (v) => {
      await put(`/api/v1/carriers/catalog/${courier.carrierId}`, bodyOf(v))
      await onDone(`Courier ${v.name} saved.`)
    },
    FIELDS,
  )
  return html`<${EditCard}
    titleId="edit-courier"
    title=${`Edit courier ${courier.name}`}
    onSubmit=${form.onSubmit}
    messages=${form.messages}
    busy=${form.busy}
    onCancel=${onCancel}
  >
    <${CourierFields} form=${form} prefix="edit-courier" />
  </${EditCard}>`
}
