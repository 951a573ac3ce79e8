// The console: who is signed in, the navigation, and which screen the address shows.
import { render } from 'preact'
import { useEffect, useState } from 'preact/hooks'
import { get, del, SESSION_URL, setCsrfToken, whenExpired } from './api.js'
import { html, Link, navigate, onNavigate, BASE } from './ui.js'
import { SignIn } from './screens/signin.js'
import { Receive } from './screens/receive.js'
import { Pickup } from './screens/pickup.js'
import { Packages } from './screens/packages.js'
import { PackageDetail } from './screens/package.js'
import { Dashboard } from './screens/dashboard.js'
import { Admin } from './screens/admin.js'
import { Account } from './screens/account.js'

const NAV = [
  ['/', 'Dashboard'],
  ['/receive', 'Receive'],
  ['/pickup', 'Hand over'],
  ['/packages', 'Packages'],
]

function route(path, user) {
  const parts = path.split('/').filter(Boolean)
  switch (parts[0] ?? '') {
    case '':
      return html`<${Dashboard} user=${user} />`
    case 'receive':
      return html`<${Receive} user=${user} />`
    case 'pickup':
      return html`<${Pickup} user=${user} />`
    case 'packages':
      return parts[1] ? html`<${PackageDetail} id=${parts[1]} user=${user} />` : html`<${Packages} user=${user} />`
    case 'account':
      return html`<${Account} user=${user} />`
    case 'admin':
      return html`<${Admin} section=${parts[1] ?? 'sites'} user=${user} />`
    default:
      return html`<main id="main">
        <h1>Not found</h1>
        <p>No console page at ${path}.</p>
      </main>`
  }
}

const currentPath = () => location.pathname.slice(BASE.length) || '/'

function App() {
  const [session, setSession] = useState({ state: 'loading' })
  const [path, setPath] = useState(currentPath())
  useEffect(() => {
    onNavigate(() => setPath(currentPath()))
    whenExpired(() => {
      setCsrfToken('')
      setSession({ state: 'signed-out', notice: 'Your session has expired: sign in again.' })
    })
    get(SESSION_URL)
      .then((s) => signedIn(s))
      .catch(() => setSession({ state: 'signed-out' }))
  }, [])
  // Each screen names itself in the title, for the tab and for screen readers on navigation.
  useEffect(() => {
    const h1 = document.querySelector('h1')
    document.title = `${h1?.textContent ?? 'Console'} · mailroom`
  })
  const signedIn = (s) => {
    setCsrfToken(s.csrfToken)
    setSession({ state: 'signed-in', user: s.user })
  }
  const signOut = async () => {
    try {
      await del(SESSION_URL)
    } finally {
      setCsrfToken('')
      setSession({ state: 'signed-out', notice: 'You are signed out.' })
      navigate('/', { replace: true })
    }
  }

  if (session.state === 'loading') return html`<p class="loading">Loading the console…</p>`
  if (session.state === 'signed-out') return html`<${SignIn} notice=${session.notice} onSignedIn=${signedIn} />`
  const { user } = session
  const here = (to) => (to === '/' ? path === '/' : path.startsWith(to))
  return html`<div class="shell">
    <a class="skip" href="#main">Skip to content</a>
    <header class="top">
      <span class="brand">mailroom</span>
      <nav aria-label="Main">
        <ul>
          ${NAV.map(
            ([to, label]) =>
              html`<li><${Link} to=${to} aria-current=${here(to) ? 'page' : undefined}>${label}</${Link}></li>`,
          )}
          ${
            user.role === 'admin' &&
            html`<li><${Link} to="/admin" aria-current=${here('/admin') ? 'page' : undefined}>Admin</${Link}></li>`
          }
        </ul>
      </nav>
      <span class="who">${user.name || user.email} (${user.role})</span>
      <${Link} to="/account" class="account-link" aria-current=${here('/account') ? 'page' : undefined}>Account</${Link}>
      <button type="button" class="secondary" onClick=${signOut}>Sign out</button>
    </header>
    ${route(path, user)}
  </div>`
}

render(html`<${App} />`, document.getElementById('app'))
