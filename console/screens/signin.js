import { useState } from 'preact/hooks'
import { get, post, SESSION_URL, ApiError } from '../api.js'
import { html, Field, Alert } from '../ui.js'

/** Where "Use single sign-on" goes: the server finds the subscription by the email's domain. */
const SSO_START = '/console/api/sso/start'
/** Whether the email's organisation turned passwords off: asked after a refused password (the 401 never says). */
const SSO_OPTIONS = '/console/api/sso/options'
const PASSWORD_OFF =
  'Password sign-in is turned off for your organisation: use single sign-on (“Use single sign-on” below).'

async function passwordOff(email) {
  try {
    return (await get(`${SSO_OPTIONS}?email=${encodeURIComponent(email.trim())}`)).passwordSignIn === false
  } catch {
    return false
  }
}

/** What each refusal of a single sign-on means (the server's codes: access/model/sso-rules.ts SSO_REFUSALS). */
const SSO_REFUSALS = {
  not_configured:
    'Single sign-on is not set up for this email’s domain: sign in with your password, or ask an administrator.',
  expired: 'The single sign-on took too long or was started in another browser: try again.',
  failed:
    'The identity provider did not sign you in (it refused, or its answer could not be checked): try again, or ask an administrator.',
  no_email: 'The identity provider did not say your email address: ask an administrator.',
  unverified_email:
    'The identity provider does not say your email address is verified, and this organisation requires it.',
  unknown_user:
    'There is no mailroom user with this email, and new users are not created at sign-in: ask an administrator to add you.',
  other_subscription:
    'This email belongs to a user of another organisation: it cannot sign in through this identity provider.',
  disabled: 'Your mailroom user is disabled: ask an administrator.',
  identity_mismatch:
    'This email’s mailroom user signs in with another account at the identity provider: sign in with that one, or ask an administrator.',
  cross_site: 'Single sign-on starts from this page only: type your email and press “Use single sign-on”.',
}

/** The refusal the server sent back in the address (`?sso_error=CODE`), taken out of it so a reload does not repeat it. */
function ssoRefusal() {
  const params = new URLSearchParams(location.search)
  const code = params.get('sso_error')
  if (code === null) return null
  params.delete('sso_error')
  const rest = params.toString()
  history.replaceState(history.state, '', `${location.pathname}${rest ? `?${rest}` : ''}${location.hash}`)
  return SSO_REFUSALS[code] ?? SSO_REFUSALS.failed
}

export function SignIn({ notice, onSignedIn }) {
  const [email, setEmail] = useState('')
  const [password, setPassword] = useState('')
  const [error, setError] = useState(null)
  const [busy, setBusy] = useState(false)
  const [ssoError] = useState(ssoRefusal)
  const [emailMissing, setEmailMissing] = useState(false)
  // A browser navigation, not a call: the provider's pages take over, then send the browser back.
  const singleSignOn = () => {
    if (!email.trim().includes('@')) return setEmailMissing(true)
    location.assign(`${SSO_START}?email=${encodeURIComponent(email.trim())}`)
  }
  const submit = async (e) => {
    e.preventDefault()
    setBusy(true)
    setError(null)
    try {
      onSignedIn(await post(SESSION_URL, { email, password }))
    } catch (err) {
      if (err instanceof ApiError && err.status === 401 && (await passwordOff(email)))
        setError(new ApiError(401, { message: PASSWORD_OFF }))
      else
        setError(
          err instanceof ApiError && err.status === 429
            ? new ApiError(429, { message: 'Too many attempts: wait a minute and try again.' })
            : err,
        )
    } finally {
      setBusy(false)
    }
  }
  const known = ['email', 'password']
  return html`<main id="main" class="signin">
    <h1>Sign in to mailroom</h1>
    ${notice && html`<${Alert} kind="info" messages=${[notice]} />`}
    ${ssoError && html`<${Alert} messages=${[ssoError]} />`}
    <form onSubmit=${submit} novalidate>
      ${error && html`<${Alert} messages=${error instanceof ApiError ? error.unclaimed(known) : [error.message]} />`}
      <${Field}
        label="Email"
        id="signin-email"
        errors=${[
          ...(error?.forField?.('email') ?? []),
          ...(emailMissing ? ['Type your email first: single sign-on finds your organisation by it.'] : []),
        ]}
      >
        ${(a) =>
          html`<input
            ...${a}
            type="email"
            autocomplete="username"
            required
            autofocus
            value=${email}
            onInput=${(e) => {
              setEmail(e.target.value)
              setEmailMissing(false)
            }}
          />`}
      </${Field}>
      <${Field} label="Password" id="signin-password" errors=${error?.forField?.('password') ?? []}>
        ${(a) =>
          html`<input
            ...${a}
            type="password"
            autocomplete="current-password"
            required
            value=${password}
            onInput=${(e) => setPassword(e.target.value)}
          />`}
      </${Field}>
      <div class="actions">
        <button type="submit" disabled=${busy}>Sign in</button>
        <button type="button" class="secondary" onClick=${singleSignOn}>Use single sign-on</button>
      </div>
    </form>
  </main>`
}
