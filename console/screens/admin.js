// Admin: sites tree, users, contacts (with a CSV roster import), custom fields, carriers, API
// clients, webhooks, notification emails, the directory (SCIM, LDAP). Every call is refused by the server (403) for a clerk,
// who sees "not allowed" here and no form. Each section is its own module; users are here.
import { useState } from 'preact/hooks'
import { get, post, patch } from '../api.js'
import { html, Field, Alert, Link, refusal, siteName } from '../ui.js'
import { loadSites } from '../data.js'
import { useForm, useList } from '../admin-kit.js'
import { USER_ROLES } from '../vocabulary.js'
import { Sites } from './admin-sites.js'
import { Contacts } from './admin-contacts.js'
import { CustomFields } from './admin-customfields.js'
import { Carriers } from './admin-carriers.js'
import { ApiClients } from './admin-clients.js'
import { Webhooks } from './webhooks.js'
import { NotificationSettings } from './admin-notifications.js'
import { Directory } from './admin-directory.js'
import { SingleSignOn } from './admin-sso.js'

const SECTIONS = [
  ['sites', 'Sites'],
  ['users', 'Users'],
  ['contacts', 'Contacts'],
  ['customfields', 'Custom fields'],
  ['carriers', 'Carriers'],
  ['clients', 'API clients'],
  ['webhooks', 'Webhooks'],
  ['notifications', 'Notifications'],
  ['directory', 'Directory'],
  ['sso', 'Single sign-on'],
]

const SCREENS = {
  sites: () => html`<${Sites} />`,
  users: () => html`<${Users} />`,
  contacts: () => html`<${Contacts} />`,
  customfields: () => html`<${CustomFields} />`,
  carriers: () => html`<${Carriers} />`,
  clients: () => html`<${ApiClients} />`,
  webhooks: () => html`<${Webhooks} />`,
  notifications: () => html`<${NotificationSettings} />`,
  directory: () => html`<${Directory} />`,
  sso: () => html`<${SingleSignOn} />`,
}

/**
 * A clerk sees that the page is not theirs and no form (the server would refuse every change
 * anyway); a section that does not exist is a not-found page, not the sites screen.
 */
export function Admin({ section, user }) {
  if (user.role !== 'admin')
    return html`<main id="main" class="admin">
      <h1 tabindex="-1">Not allowed</h1>
      <${Alert} messages=${['The admin pages are for administrators. Your role does not allow this: ask an administrator.']} />
      <p><${Link} to="/">Back to the dashboard</${Link}></p>
    </main>`
  const title = SECTIONS.find(([k]) => k === section)?.[1]
  if (!title)
    return html`<main id="main" class="admin">
      <h1 tabindex="-1">Not found</h1>
      <p>There is no admin section “${section}”. <${Link} to="/admin">Admin: Sites</${Link}></p>
    </main>`
  return html`<main id="main" class="admin">
    <h1 tabindex="-1">Admin: ${title}</h1>
    <nav aria-label="Admin sections" class="tabs">
      <ul>
        ${SECTIONS.map(([k, l]) => html`<li><${Link} to=${`/admin/${k}`} aria-current=${k === section ? 'page' : undefined}>${l}</${Link}></li>`)}
      </ul>
    </nav>
    ${SCREENS[section]()}
  </main>`
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
          ${USER_ROLES.map((r) => html`<option value=${r}>${r}</option>`)}
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
