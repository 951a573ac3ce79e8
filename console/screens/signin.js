import { useState } from 'preact/hooks'
import { post, SESSION_URL, ApiError } from '../api.js'
import { html, Field, Alert } from '../ui.js'

export function SignIn({ notice, onSignedIn }) {
  const [email, setEmail] = useState('')
  const [password, setPassword] = useState('')
  const [error, setError] = useState(null)
  const [busy, setBusy] = useState(false)
  const submit = async (e) => {
    e.preventDefault()
    setBusy(true)
    setError(null)
    try {
      onSignedIn(await post(SESSION_URL, { email, password }))
    } catch (err) {
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
    <form onSubmit=${submit} novalidate>
      ${error && html`<${Alert} messages=${error instanceof ApiError ? error.unclaimed(known) : [error.message]} />`}
      <${Field} label="Email" id="signin-email" errors=${error?.forField?.('email') ?? []}>
        ${(a) =>
          html`<input
            ...${a}
            type="email"
            autocomplete="username"
            required
            autofocus
            value=${email}
            onInput=${(e) => setEmail(e.target.value)}
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
      <button type="submit" disabled=${busy}>Sign in</button>
    </form>
  </main>`
}
