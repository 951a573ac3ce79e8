// Admin › Carriers: the catalogue (the built-in carriers and the subscription's own couriers) and a
// new courier. The API has no route to change or remove a courier yet, so neither is offered here.
import { get, post } from '../api.js'
import { html, Field, Alert, refusal } from '../ui.js'
import { useForm, useList } from '../admin-kit.js'

export function Carriers() {
  const carriers = useList(() => get('/api/v1/carriers/catalog?limit=200').then((r) => r.carriers))
  const form = useForm(
    { name: '', services: '', barcodeAware: false },
    async (v) => {
      const services = v.services
        .split(',')
        .map((s) => s.trim())
        .filter(Boolean)
      await post('/api/v1/carriers/catalog', {
        name: v.name,
        barcodeAware: v.barcodeAware,
        ...(services.length ? { services } : {}),
      })
      await carriers.reload()
      return `Courier ${v.name} added.`
    },
    ['name', 'services', 'barcodeAware'],
  )
  if (carriers.error) return html`<${Alert} messages=${[refusal(carriers.error)]} />`
  return html`<section class="card" aria-labelledby="car-title">
      <h2 id="car-title">Carriers</h2>
      <table>
        <thead>
          <tr>
            <th scope="col">Carrier</th>
            <th scope="col">SCAC</th>
            <th scope="col">Barcodes decoded</th>
            <th scope="col">Services</th>
            <th scope="col">Kind</th>
          </tr>
        </thead>
        <tbody>
          ${(carriers.items ?? []).map(
            (c) =>
              html`<tr>
                <td>${c.name}</td>
                <td>${c.scac ?? ''}</td>
                <td>${c.barcodeAware ? 'yes' : 'no'}</td>
                <td>${c.services.slice(0, 4).join(', ')}</td>
                <td>${c.builtIn ? 'built in' : 'own courier'}</td>
              </tr>`,
          )}
        </tbody>
      </table>
    </section>
    <form class="card" novalidate onSubmit=${form.onSubmit} aria-labelledby="new-courier">
      <h2 id="new-courier">New courier</h2>
      ${form.messages}
      <${Field} label="Courier name" id="courier-name" errors=${form.errorsOf('name')}>${(a) => html`<input ...${a} ...${form.bind('name')} />`}</${Field}>
      <${Field} label="Services" id="courier-services" hint="Comma-separated, e.g. Same day, Next day." errors=${form.errorsOf('services')}>${(a) => html`<input ...${a} ...${form.bind('services')} />`}</${Field}>
      <label class="check"><input type="checkbox" ...${form.check('barcodeAware')} /> Its barcodes are decoded</label>
      <button type="submit" disabled=${form.busy}>Add courier</button>
    </form>`
}
