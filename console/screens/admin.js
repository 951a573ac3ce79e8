// Admin: sites tree, users, contacts (with a CSV roster import), custom fields, carriers. Every
// call is refused by the server (403) for a clerk; the navigation only hides what would be refused.
import { useEffect, useState } from 'preact/hooks'
import { get, post, patch, ApiError, qs } from '../api.js'
import { html, Field, Alert, Link, refusal, siteName } from '../ui.js'
import { loadSites } from '../data.js'
import { parseCsv, rosterRows } from '../csv.js'
import { Webhooks } from './webhooks.js'

const SECTIONS = [
  ['sites', 'Sites'],
  ['users', 'Users'],
  ['contacts', 'Contacts'],
  ['customfields', 'Custom fields'],
  ['carriers', 'Carriers'],
  ['clients', 'API clients'],
  ['webhooks', 'Webhooks'],
]
const SITE_TYPES = ['site', 'building', 'floor', 'room', 'mailstop', 'shelf', 'locker']

/** A form's state, its submit with the API's field errors, and a message once done. */
function useForm(initial, submit, fields) {
  const [values, setValues] = useState(initial)
  const [error, setError] = useState(null)
  const [done, setDone] = useState(null)
  const onSubmit = async (e) => {
    e.preventDefault()
    setError(null)
    setDone(null)
    try {
      setDone((await submit(values)) ?? 'Saved.')
      setValues(initial)
    } catch (err) {
      setError(err)
    }
  }
  const err = error instanceof ApiError ? error : null
  const bind = (k) => ({
    value: values[k],
    onInput: (e) => setValues({ ...values, [k]: e.target.type === 'checkbox' ? e.target.checked : e.target.value }),
  })
  const errorsOf = (name) => err?.forField(name) ?? []
  const top = error ? (err ? err.unclaimed(fields) : [error.message]) : []
  return { values, setValues, onSubmit, bind, errorsOf, top, done }
}

export function Admin({ section, user }) {
  const title = SECTIONS.find(([k]) => k === section)?.[1] ?? 'Sites'
  return html`<main id="main" class="admin">
    <h1>Admin: ${title}</h1>
    ${user.role !== 'admin' && html`<${Alert} messages=${['This page is for administrators: the server refuses its changes to your account.']} />`}
    <nav aria-label="Admin sections" class="tabs">
      <ul>
        ${SECTIONS.map(([k, l]) => html`<li><${Link} to=${`/admin/${k}`} aria-current=${k === section ? 'page' : undefined}>${l}</${Link}></li>`)}
      </ul>
    </nav>
    ${
      section === 'users'
        ? html`<${Users} />`
        : section === 'contacts'
          ? html`<${Contacts} />`
          : section === 'customfields'
            ? html`<${CustomFields} />`
            : section === 'carriers'
              ? html`<${Carriers} />`
              : section === 'webhooks'
                ? html`<${Webhooks} />`
                : section === 'clients'
                  ? html`<${ApiClients} />`
                  : html`<${Sites} />`
    }
  </main>`
}

function useList(load, deps = []) {
  const [items, setItems] = useState(null)
  const [error, setError] = useState(null)
  const reload = () => load().then(setItems, setError)
  useEffect(() => void reload(), deps)
  return { items, error, reload }
}

function Sites() {
  const sites = useList(() => loadSites({ fresh: true }))
  const locations = useList(() => get('/api/v1/locations?limit=200').then((r) => r.locations))
  const form = useForm(
    { name: '', type: 'site', parent: '', locationId: '' },
    async (v) => {
      const body =
        v.type === 'site'
          ? { type: 'site', name: v.name, locationId: v.locationId }
          : { type: v.type, name: v.name, parent: v.parent }
      await post('/api/v1/inboundsites', body)
      await sites.reload()
      return `Site ${v.name} created.`
    },
    ['name', 'type', 'parent', 'locationId'],
  )
  const loc = useForm(
    { name: '', postalCode: '', country: 'US', timezone: Intl.DateTimeFormat().resolvedOptions().timeZone },
    async (v) => {
      await post('/api/v1/locations', {
        name: v.name,
        address: { postalCode: v.postalCode, country: v.country },
        timezone: v.timezone,
      })
      await locations.reload()
      return `Location ${v.name} created.`
    },
    ['name', 'address', 'timezone'],
  )
  if (sites.error) return html`<${Alert} messages=${[refusal(sites.error)]} />`
  const list = sites.items ?? []
  const children = (parent) => list.filter((s) => (s.parent ?? '') === parent)
  const tree = (parent) => {
    const kids = children(parent)
    return kids.length === 0
      ? null
      : html`<ul>
          ${kids.map((s) => html`<li><span>${s.name}</span> <small>${s.type}</small>${tree(s.inboundSiteId)}</li>`)}
        </ul>`
  }
  return html`<section aria-labelledby="tree-title" class="card">
      <h2 id="tree-title">Sites tree</h2>
      <div class="tree">${tree('')}</div>
    </section>
    <form class="card" novalidate onSubmit=${form.onSubmit} aria-labelledby="new-site">
      <h2 id="new-site">New site</h2>
      <${Alert} messages=${form.top} /><${Alert} kind="info" messages=${form.done ? [form.done] : []} />
      <${Field} label="Site name" id="site-name" errors=${form.errorsOf('name')}>${(a) => html`<input ...${a} ...${form.bind('name')} />`}</${Field}>
      <${Field} label="Type" id="site-type" errors=${form.errorsOf('type')}>${(a) =>
        html`<select
          ...${a}
          value=${form.values.type}
          onChange=${(e) => form.setValues({ ...form.values, type: e.target.value })}
        >
          ${SITE_TYPES.map((t) => html`<option value=${t}>${t}</option>`)}
        </select>`}</${Field}>
      ${
        form.values.type === 'site'
          ? html`<${Field} label="Location" id="site-location" errors=${form.errorsOf('locationId')}>${(a) =>
              html`<select
                ...${a}
                value=${form.values.locationId}
                onChange=${(e) => form.setValues({ ...form.values, locationId: e.target.value })}
              >
                <option value="">Choose a location…</option>
                ${(locations.items ?? []).map((l) => html`<option value=${l.locationId}>${l.name}</option>`)}
              </select>`}</${Field}>`
          : html`<${Field} label="Parent site" id="site-parent" errors=${form.errorsOf('parent')}>${(a) =>
              html`<select
                ...${a}
                value=${form.values.parent}
                onChange=${(e) => form.setValues({ ...form.values, parent: e.target.value })}
              >
                <option value="">Choose the parent…</option>
                ${list.map((s) => html`<option value=${s.inboundSiteId}>${siteName(s)}</option>`)}
              </select>`}</${Field}>`
      }
      <button type="submit">Create site</button>
    </form>
    <form class="card" novalidate onSubmit=${loc.onSubmit} aria-labelledby="new-loc">
      <h2 id="new-loc">New location (an address sites belong to)</h2>
      <${Alert} messages=${loc.top} /><${Alert} kind="info" messages=${loc.done ? [loc.done] : []} />
      <${Field} label="Location name" id="loc-name" errors=${loc.errorsOf('name')}>${(a) => html`<input ...${a} ...${loc.bind('name')} />`}</${Field}>
      <${Field} label="Street address" id="loc-line1" errors=${loc.errorsOf('address.line1')}>${(a) => html`<input ...${a} ...${loc.bind('line1')} />`}</${Field}>
      <${Field} label="City" id="loc-city" errors=${loc.errorsOf('address.city')}>${(a) => html`<input ...${a} ...${loc.bind('city')} />`}</${Field}>
      <${Field} label="State" id="loc-state" errors=${loc.errorsOf('address.state')}>${(a) => html`<input ...${a} ...${loc.bind('state')} />`}</${Field}>
      <${Field} label="Postal code" id="loc-zip" errors=${loc.errorsOf('address.postalCode')}>${(a) => html`<input ...${a} ...${loc.bind('postalCode')} />`}</${Field}>
      <${Field} label="Country" id="loc-country" errors=${loc.errorsOf('address.country')}>${(a) => html`<input ...${a} ...${loc.bind('country')} />`}</${Field}>
      <${Field} label="Time zone" id="loc-tz" errors=${loc.errorsOf('timezone')}>${(a) => html`<input ...${a} ...${loc.bind('timezone')} />`}</${Field}>
      <button type="submit">Create location</button>
    </form>`
}

function Users() {
  const users = useList(() => get('/api/v1/users').then((r) => r.users))
  const sites = useList(() => loadSites())
  const form = useForm(
    { email: '', name: '', role: 'clerk', siteId: '', password: '' },
    async (v) => {
      const res = await post('/api/v1/users', {
        email: v.email,
        role: v.role,
        ...(v.name ? { name: v.name } : {}),
        ...(v.siteId ? { siteId: v.siteId } : {}),
        ...(v.password ? { password: v.password } : {}),
      })
      await users.reload()
      const once = res?.password
      return once ? `User ${v.email} created. One-time password: ${once}` : `User ${v.email} created.`
    },
    ['email', 'name', 'role', 'siteId', 'password'],
  )
  const [actionError, setActionError] = useState(null)
  const setDisabled = async (u, disabled) => {
    setActionError(null)
    try {
      await patch(`/api/v1/users/${u.userId}`, { disabled })
      await users.reload()
    } catch (err) {
      setActionError(refusal(err))
    }
  }
  const [actionDone, setActionDone] = useState(null)
  // A new one-time password (the user forgot theirs): shown once here; the user's sessions end.
  const newPassword = async (u) => {
    setActionError(null)
    setActionDone(null)
    try {
      const res = await post(`/api/v1/users/${u.userId}/password`, {})
      setActionDone(`New one-time password for ${u.email}: ${res.password}`)
    } catch (err) {
      setActionError(refusal(err))
    }
  }
  if (users.error) return html`<${Alert} messages=${[refusal(users.error)]} />`
  return html`<section class="card" aria-labelledby="users-title">
      <h2 id="users-title">Users</h2>
      <${Alert} messages=${actionError ? [actionError] : []} />
      <${Alert} kind="info" messages=${actionDone ? [actionDone] : []} />
      <table><thead><tr><th scope="col">Email</th><th scope="col">Name</th><th scope="col">Role</th><th scope="col">Status</th><th scope="col">Action</th></tr></thead>
        <tbody>${(users.items ?? []).map(
          (u) =>
            html`<tr>
              <td>${u.email}</td>
              <td>${u.name ?? ''}</td>
              <td>${u.role}</td>
              <td>${u.status ?? 'active'}</td>
              <td>
                ${
                  u.status === 'disabled'
                    ? html`<button type="button" class="link" onClick=${() => setDisabled(u, false)}>
                        Enable ${u.email}
                      </button>`
                    : html`<button type="button" class="link" onClick=${() => setDisabled(u, true)}>
                        Disable ${u.email}
                      </button>`
                }
                <button type="button" class="link" onClick=${() => newPassword(u)}>New password for ${u.email}</button>
              </td>
            </tr>`,
        )}</tbody></table>
    </section>
    <form class="card" novalidate onSubmit=${form.onSubmit} aria-labelledby="new-user">
      <h2 id="new-user">New user</h2>
      <${Alert} messages=${form.top} /><${Alert} kind="info" messages=${form.done ? [form.done] : []} />
      <${Field} label="Email" id="user-email" errors=${form.errorsOf('email')}>${(a) => html`<input ...${a} type="email" ...${form.bind('email')} />`}</${Field}>
      <${Field} label="Name" id="user-name" errors=${form.errorsOf('name')}>${(a) => html`<input ...${a} ...${form.bind('name')} />`}</${Field}>
      <${Field} label="Role" id="user-role" errors=${form.errorsOf('role')}>${(a) =>
        html`<select
          ...${a}
          value=${form.values.role}
          onChange=${(e) => form.setValues({ ...form.values, role: e.target.value })}
        >
          <option value="clerk">clerk</option>
          <option value="admin">admin</option>
        </select>`}</${Field}>
      <${Field} label="Limited to site" id="user-site" errors=${form.errorsOf('siteId')}>${(a) =>
        html`<select
          ...${a}
          value=${form.values.siteId}
          onChange=${(e) => form.setValues({ ...form.values, siteId: e.target.value })}
        >
          <option value="">All sites</option>
          ${(sites.items ?? []).map((s) => html`<option value=${s.inboundSiteId}>${siteName(s)}</option>`)}
        </select>`}</${Field}>
      <${Field} label="Password" id="user-password" hint="Leave empty to get a one-time password." errors=${form.errorsOf('password')}>${(a) => html`<input ...${a} type="password" autocomplete="new-password" ...${form.bind('password')} />`}</${Field}>
      <button type="submit">Create user</button>
    </form>`
}

function Contacts() {
  const [query, setQuery] = useState('')
  const contacts = useList(() => get(`/api/v1/contacts?${qs({ query, limit: 50 })}`).then((r) => r.contacts), [query])
  const [rows, setRows] = useState([])
  const [importing, setImporting] = useState(false)
  // One contact at a time (a new resident at the desk); the API's errors show under their field.
  const form = useForm(
    { name: '', email: '', company: '', phone: '', contactType: 'RECEIVER' },
    async (v) => {
      const body = Object.fromEntries(Object.entries(v).filter(([, x]) => x.trim() !== ''))
      await post('/api/v1/contacts', body)
      await contacts.reload()
      return `Contact ${v.name} created.`
    },
    ['name', 'email', 'company', 'phone', 'contactType'],
  )
  const preview = async (e) => {
    const file = e.target.files?.[0]
    if (!file) return
    setRows(rosterRows(parseCsv(await file.text())))
  }
  const runImport = async () => {
    setImporting(true)
    const next = []
    for (const r of rows) {
      if (r.errors.length > 0 || r.result) {
        next.push(r)
        continue
      }
      try {
        const res = await post('/api/v1/contacts', r.contact)
        next.push({ ...r, result: `Created ${res.contactId}` })
      } catch (err) {
        const items =
          err instanceof ApiError
            ? err.items.map((i) => (i.field ? `${i.field}: ${i.message}` : i.message))
            : [err.message]
        next.push({ ...r, errors: items.length ? items : [err.message] })
      }
    }
    setRows(next)
    setImporting(false)
    await contacts.reload()
  }
  if (contacts.error) return html`<${Alert} messages=${[refusal(contacts.error)]} />`
  const ready = rows.filter((r) => r.errors.length === 0 && !r.result).length
  return html`<section class="card" aria-labelledby="contacts-title">
      <h2 id="contacts-title">Contacts</h2>
      <div class="field">
        <label for="contacts-q">Search contacts</label>
        <input id="contacts-q" type="search" value=${query} onInput=${(e) => setQuery(e.target.value)} />
      </div>
      <table>
        <thead>
          <tr>
            <th scope="col">Name</th>
            <th scope="col">Email</th>
            <th scope="col">Company</th>
            <th scope="col">Type</th>
          </tr>
        </thead>
        <tbody>
          ${(contacts.items ?? []).map(
            (c) =>
              html`<tr>
                <td>${c.name}</td>
                <td>${c.email ?? ''}</td>
                <td>${c.company ?? ''}</td>
                <td>${c.contactType}</td>
              </tr>`,
          )}
        </tbody>
      </table>
    </section>
    <form class="card" novalidate onSubmit=${form.onSubmit} aria-labelledby="new-contact">
      <h2 id="new-contact">New contact</h2>
      <${Alert} messages=${form.top} /><${Alert} kind="info" messages=${form.done ? [form.done] : []} />
      <${Field} label="Contact name" id="contact-name" errors=${form.errorsOf('name')}>${(a) => html`<input ...${a} ...${form.bind('name')} />`}</${Field}>
      <${Field} label="Contact email" id="contact-email" errors=${form.errorsOf('email')}>${(a) => html`<input ...${a} type="email" ...${form.bind('email')} />`}</${Field}>
      <${Field} label="Company" id="contact-company" errors=${form.errorsOf('company')}>${(a) => html`<input ...${a} ...${form.bind('company')} />`}</${Field}>
      <${Field} label="Phone" id="contact-phone" errors=${form.errorsOf('phone')}>${(a) => html`<input ...${a} type="tel" ...${form.bind('phone')} />`}</${Field}>
      <${Field} label="Contact type" id="contact-type" errors=${form.errorsOf('contactType')}>${(a) =>
        html`<select
          ...${a}
          value=${form.values.contactType}
          onChange=${(e) => form.setValues({ ...form.values, contactType: e.target.value })}
        >
          <option value="RECEIVER">Recipient</option>
          <option value="SENDER">Sender</option>
          <option value="ALL">Both</option>
        </select>`}</${Field}>
      <button type="submit">Create contact</button>
    </form>
    <section class="card" aria-labelledby="roster-title">
      <h2 id="roster-title">Import a roster (CSV)</h2>
      <p class="hint">
        Columns: name (required), email, company, phone, personalId, contactType (RECEIVER, SENDER or ALL).
      </p>
      <div class="field">
        <label for="roster-file">Roster file</label
        ><input id="roster-file" type="file" accept=".csv,text/csv" onChange=${preview} />
      </div>
      ${
        rows.length > 0 &&
        html`<table aria-label="Roster preview">
            <thead>
              <tr>
                <th scope="col">Row</th>
                <th scope="col">Name</th>
                <th scope="col">Email</th>
                <th scope="col">Result</th>
              </tr>
            </thead>
            <tbody>
              ${rows.map(
                (r) =>
                  html`<tr class=${r.errors.length ? 'bad' : ''}>
                    <td>${r.line}</td>
                    <td>${r.contact.name ?? ''}</td>
                    <td>${r.contact.email ?? ''}</td>
                    <td>${r.errors.length ? r.errors.join('; ') : (r.result ?? 'Ready')}</td>
                  </tr>`,
              )}
            </tbody>
          </table>
          <button type="button" onClick=${runImport} disabled=${importing || ready === 0}>
            Import ${ready} contact${ready === 1 ? '' : 's'}
          </button>`
      }
    </section>`
}

function CustomFields() {
  const fields = useList(() => get('/api/v1/customfields?limit=200').then((r) => r.customFields))
  const form = useForm(
    { name: '', dataType: 'TEXT', required: false },
    async (v) => {
      await post('/api/v1/customfields', { name: v.name, dataType: v.dataType, required: v.required })
      await fields.reload()
      return `Field ${v.name} created.`
    },
    ['name', 'dataType', 'required'],
  )
  if (fields.error) return html`<${Alert} messages=${[refusal(fields.error)]} />`
  return html`<section class="card" aria-labelledby="cf-title"><h2 id="cf-title">Custom fields</h2>
      <table><thead><tr><th scope="col">Name</th><th scope="col">Type</th><th scope="col">Required</th><th scope="col">Status</th></tr></thead>
      <tbody>${(fields.items ?? []).map(
        (f) =>
          html`<tr>
            <td>${f.name}</td>
            <td>${f.dataType}</td>
            <td>${f.required ? 'yes' : 'no'}</td>
            <td>${f.status}</td>
          </tr>`,
      )}</tbody></table></section>
    <form class="card" novalidate onSubmit=${form.onSubmit} aria-labelledby="new-cf"><h2 id="new-cf">New custom field</h2>
      <${Alert} messages=${form.top} /><${Alert} kind="info" messages=${form.done ? [form.done] : []} />
      <${Field} label="Field name" id="cf-name" errors=${form.errorsOf('name')}>${(a) => html`<input ...${a} ...${form.bind('name')} />`}</${Field}>
      <${Field} label="Data type" id="cf-type" errors=${form.errorsOf('dataType')}>${(a) =>
        html`<select
          ...${a}
          value=${form.values.dataType}
          onChange=${(e) => form.setValues({ ...form.values, dataType: e.target.value })}
        >
          ${['TEXT', 'NUMBER', 'DATE', 'BOOLEAN'].map((t) => html`<option value=${t}>${t}</option>`)}
        </select>`}</${Field}>
      <label class="check"><input type="checkbox" checked=${form.values.required} onChange=${(e) => form.setValues({ ...form.values, required: e.target.checked })} /> Required</label>
      <button type="submit">Create field</button>
    </form>`
}

function Carriers() {
  const carriers = useList(() => get('/api/v1/carriers/catalog?limit=200').then((r) => r.carriers))
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
            </tr>`,
        )}
      </tbody>
    </table>
  </section>`
}

/** API clients have no HTTP routes yet (helper "users" found none to protect): the CLI manages them. */
function ApiClients() {
  return html`<section class="card">
    <h2>API clients</h2>
    <p>
      The credentials integrations use are managed with the command line:
      <code>npx mailroom clients create --subscription NAME</code>, <code>clients list</code>,
      <code>clients disable ID</code>, <code>clients enable ID</code>.
    </p>
  </section>`
}
