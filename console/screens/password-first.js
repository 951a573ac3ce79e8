// The only screen of a session signed in with a generated password (issue 25.6): the server refuses
// everything else (403) until the user chooses their own.
import { useState } from 'preact/hooks'
import { post, SESSION_URL, ApiError } from '../api.js'
import { html, Field, Alert } from '../ui.js'

export function PasswordFirst({ user, onChanged, onSignOut }) {
  const [current, setCurrent] = useState('')
  const [next, setNext] = useState('')
  const [again, setAgain] = useState('')
  const [error, setError] = useState(null)
  const [busy, setBusy] = useState(false)
  const submit = async (e) => {
    e.preventDefault()
    setError(null)
    if (next !== again)
      return setError(
        new ApiError(400, {
          errors: [{ additionalParameters: 'repeat', errorDescription: 'The two new passwords differ.' }],
        }),
      )
    setBusy(true)
    try {
      await post(`${SESSION_URL}/password`, { currentPassword: current, newPassword: next })
      await onChanged()
    } catch (err) {
      setError(err)
    } finally {
      setBusy(false)
    }
  }
  const err = error instanceof ApiError ? error : null
  const known = ['currentPassword', 'newPassword', 'repeat']
  return html`<main id="main" class="signin">
    <h1>Choose your password</h1>
    <p>
      You signed in as ${user.email} with a password an administrator generated. Choose your own to continue: the console
      opens once it is changed.
    </p>
    <form onSubmit=${submit} novalidate>
      ${error && html`<${Alert} messages=${err ? err.unclaimed(known) : [error.message]} />`}
      <${Field} label="Generated password" id="first-current" errors=${err?.forField('currentPassword') ?? []}>
        ${(a) =>
          html`<input
            ...${a}
            type="password"
            autocomplete="current-password"
            autofocus
            value=${current}
            onInput=${(e) => setCurrent(e.target.value)}
          />`}
      </${Field}>
      <${Field} label="New password" id="first-new" hint="10 to 200 characters." errors=${err?.forField('newPassword') ?? []}>
        ${(a) =>
          html`<input
            ...${a}
            type="password"
            autocomplete="new-password"
            value=${next}
            onInput=${(e) => setNext(e.target.value)}
          />`}
      </${Field}>
      <${Field} label="New password again" id="first-repeat" errors=${err?.forField('repeat') ?? []}>
        ${(a) =>
          html`<input
            ...${a}
            type="password"
            autocomplete="new-password"
            value=${again}
            onInput=${(e) => setAgain(e.target.value)}
          />`}
      </${Field}>
      <div class="actions">
        <button type="submit" disabled=${busy}>Set my password</button>
        <button type="button" class="secondary" onClick=${onSignOut}>Sign out</button>
      </div>
    </form>
  </main>`
}
