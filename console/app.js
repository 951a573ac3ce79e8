// The console: who is signed in, the navigation, and which screen the address shows.
import { render } from 'preact'
import { useEffect, useRef, useState } from 'preact/hooks'
import { get, del, SESSION_URL, setCsrfToken, whenExpired } from './api.js'
import { html, Link, navigate, onNavigate, BASE } from './ui.js'
import { SignIn } from './screens/signin.js'
import { Receive } from './screens/receive.js'
import { ScanIssues } from './screens/scan-issues.js'
import { Pickup } from './screens/pickup.js'
import { Packages } from './screens/packages.js'
import { PackageDetail } from './screens/package.js'
import { Dashboard } from './screens/dashboard.js'
import { Admin } from './screens/admin.js'
import { Shelves } from './screens/shelves.js'
import { Reports } from './screens/reports.js'
import { Exceptions } from './screens/exceptions.js'
import { Returns } from './screens/returns.js'
import { Account } from './screens/account.js'
import { PasswordFirst } from './screens/password-first.js'
import { SessionClock } from './session-clock.js'
import { restoreDraft, saveDraft } from './drafts.js'

const NAV = [
  ['/', 'Dashboard'],
  ['/receive', 'Receive'],
  ['/scanissues', 'Scan issues'],
  ['/exceptions', 'Exceptions'],
  ['/pickup', 'Hand over'],
  ['/packages', 'Packages'],
  ['/shelves', 'Shelves'],
  ['/returns', 'Returns'],
  ['/reports', 'Reports'],
]

function route(path, user) {
  const parts = path.split('/').filter(Boolean)
  switch (parts[0] ?? '') {
    case '':
      return html`<${Dashboard} user=${user} />`
    case 'receive':
      return html`<${Receive} user=${user} />`
    case 'scanissues':
      return html`<${ScanIssues} user=${user} />`
    case 'exceptions':
      return html`<${Exceptions} user=${user} />`
    case 'pickup':
      return html`<${Pickup} user=${user} />`
    case 'packages':
      return parts[1] ? html`<${PackageDetail} id=${parts[1]} user=${user} />` : html`<${Packages} user=${user} />`
    case 'shelves':
      return html`<${Shelves} tab=${parts[1] ?? ''} user=${user} />`
    case 'reports':
      return html`<${Reports} user=${user} />`
    case 'returns':
      return html`<${Returns} user=${user} />`
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

/**
 * The screen's main control after a navigation (issue 25.9): one the screen marks
 * (data-main-control), else its first field, else its heading; unless the screen already put the
 * focus in itself (Receive's Scan, Hand over's code).
 */
function focusMain() {
  const main = document.getElementById('main')
  if (!main || main.contains(document.activeElement)) return
  const target =
    main.querySelector('[data-main-control]') ??
    // A field below the fold is not the screen's main control: focusing it would scroll the page away.
    [...main.querySelectorAll('input:not([type=hidden]), select, textarea')].find(
      (el) => el.offsetParent !== null && el.getBoundingClientRect().bottom <= window.innerHeight,
    ) ??
    main.querySelector('h1')
  if (target?.tagName === 'H1' && !target.hasAttribute('tabindex')) target.setAttribute('tabindex', '-1')
  target?.focus()
}

function App() {
  const [session, setSession] = useState({ state: 'loading' })
  const [path, setPath] = useState(currentPath())
  const [restored, setRestored] = useState(false)
  // The session as the expiry handlers see it when they run (they are registered once).
  const live = useRef(session)
  live.current = session
  /** The session ended under the clerk: the screen's work is kept for after the next sign-in. */
  const expired = () => {
    const s = live.current
    if (s.state !== 'signed-in') return
    const kept = saveDraft(currentPath(), s.user.userId)
    setCsrfToken('')
    setRestored(false)
    setSession({
      state: 'signed-out',
      notice: `Your session has expired: sign in again.${kept ? ' What you typed on this screen is kept.' : ''}`,
    })
  }
  useEffect(() => {
    onNavigate(() => setPath(currentPath()))
    whenExpired(expired)
    get(SESSION_URL)
      .then((s) => signedIn(s))
      .catch(() => setSession({ state: 'signed-out' }))
  }, [])
  // Each screen names itself in the title, for the tab and for screen readers on navigation.
  useEffect(() => {
    const h1 = document.querySelector('h1')
    document.title = `${h1?.textContent ?? 'Console'} · mailroom`
  })
  const ready = session.state === 'signed-in' && !session.mustChangePassword
  // On each navigation (not the first screen, whose own autofocus stands) the focus goes to the new screen.
  const firstPath = useRef(true)
  useEffect(() => {
    if (!ready) return
    if (firstPath.current) {
      firstPath.current = false
      return
    }
    window.requestAnimationFrame(focusMain)
  }, [path, ready])
  // After a sign-in, the work the last session left on this screen comes back.
  useEffect(() => {
    if (!ready) return
    restoreDraft(currentPath(), session.user.userId).then((done) => setRestored(done))
  }, [ready, session.user?.userId])
  const signedIn = (s) => {
    setCsrfToken(s.csrfToken)
    setSession({
      state: 'signed-in',
      user: s.user,
      mustChangePassword: s.mustChangePassword,
      idleSeconds: s.idleSeconds,
      expiresInSeconds: s.expiresInSeconds,
    })
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
  if (session.mustChangePassword)
    return html`<${PasswordFirst}
      user=${user}
      onSignOut=${signOut}
      onChanged=${() => get(SESSION_URL).then(signedIn)}
    />`
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
    <${SessionClock}
      idleSeconds=${session.idleSeconds}
      expiresInSeconds=${session.expiresInSeconds}
      onExpire=${expired}
    />
    ${restored && html`<p class="sr" role="status">Your unsaved work on this screen was restored.</p>`}
    ${route(path, user)}
  </div>`
}

render(html`<${App} />`, document.getElementById('app'))
