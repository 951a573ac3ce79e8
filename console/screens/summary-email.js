// The daily summary email, on the Reports screen (admins only): the email is this screen's
// summary of the day before and links back here, so an admin deciding whether to get it looks
// here first. Each admin's own choice (the server's rule), a checkbox each: theirs first, then the
// subscription's other active admins, whom an admin may switch too (the PUT allows any admin).
// Never disabled while saving: a disabled box drops the keyboard focus.
import { useEffect, useState } from 'preact/hooks'
import { get, put } from '../api.js'
import { html, Alert, refusal } from '../ui.js'

const pad = (n) => String(n).padStart(2, '0')

export function SummaryEmail({ user }) {
  const [settings, setSettings] = useState(null)
  const [admins, setAdmins] = useState([])
  const [error, setError] = useState(null)
  const [status, setStatus] = useState('')
  useEffect(() => {
    get('/api/v1/reports/summary-email').then(setSettings, setError)
    get('/api/v1/users').then(
      (r) =>
        setAdmins(r.users.filter((u) => u.role === 'admin' && u.status !== 'disabled' && u.userId !== user.userId)),
      setError,
    )
  }, [user.userId])
  if (!settings)
    return error
      ? html`<${Alert} messages=${[refusal(error)]} />`
      : html`<p role="status">Loading the summary email…</p>`
  const on = (userId) => settings.recipients.some((r) => r.userId === userId)
  const toggle = async (target, enabled) => {
    setError(null)
    try {
      setSettings(
        await put(`/api/v1/reports/summary-email/recipients/${encodeURIComponent(target.userId)}`, { enabled }),
      )
      const who = target.userId === user.userId ? 'You' : target.name || target.email
      setStatus(`${who} ${enabled ? 'now get' : 'no longer get'}${who === 'You' ? '' : 's'} the daily summary.`)
    } catch (err) {
      setError(err)
    }
  }
  const when = `${pad(settings.hour)}:00 ${settings.timeZone}`
  const box = (u, label, id) =>
    html`<label class="check"
      ><input type="checkbox" id=${id} checked=${on(u.userId)} onChange=${(e) => toggle(u, e.target.checked)} />
      ${label}</label
    >`
  const others = admins.map((u) => box(u, u.name ? `${u.name} (${u.email})` : u.email))
  return html`<section class="card" aria-labelledby="summary-email-title" data-testid="summary-email">
    <h2 id="summary-email-title">Daily summary email</h2>
    <p class="hint">
      Sent each day from <strong>${when}</strong>: the day before, per site, with the oldest parcels waiting and a link
      here.
    </p>
    ${box(user, 'Email me the daily summary', 'summary-email-me')}
    ${
      others.length > 0 &&
      html`<fieldset>
        <legend>Other administrators</legend>
        ${others}
      </fieldset>`
    }
    <${Alert} messages=${error ? [refusal(error)] : []} />
    <p role="status">${status}</p>
  </section>`
}
