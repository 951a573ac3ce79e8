// Account: the signed-in person's own password, and the browsers they are signed in on, each but
// this one with a "Sign out" (a lost tablet, a shared desk computer). Any role may use it.
import { useState } from 'preact/hooks'
import { get, post, del, SESSION_URL } from '../api.js'
import { html, Field, Alert, refusal, fmtTime } from '../ui.js'
import { useForm, useList, useAction, useConfirm } from '../admin-kit.js'

const SESSIONS_URL = '/console/api/sessions'

/** The browser as a person names it ("Chrome on Linux"), from its user agent; the raw string otherwise. */
export function browserName(ua) {
  if (!ua) return 'Unknown browser'
  const browser = /Edg\//.test(ua)
    ? 'Edge'
    : /Firefox\//.test(ua)
      ? 'Firefox'
      : /Chrom(e|ium)\//.test(ua)
        ? 'Chrome'
        : /Safari\//.test(ua)
          ? 'Safari'
          : null
  const os = /Android/.test(ua)
    ? 'Android'
    : /iPhone|iPad/.test(ua)
      ? 'iOS'
      : /Windows/.test(ua)
        ? 'Windows'
        : /Mac OS X/.test(ua)
          ? 'macOS'
          : /Linux/.test(ua)
            ? 'Linux'
            : null
  return browser ? `${browser}${os ? ` on ${os}` : ''}` : ua.slice(0, 60)
}

export function Account({ user }) {
  // A changed password ends the user's other sessions: the list is read again (a new key remounts it).
  const [changes, setChanges] = useState(0)
  return html`<main id="main" class="account">
    <h1>Account</h1>
    <p>Signed in as ${user.name ? `${user.name} (${user.email})` : user.email}, ${user.role}.</p>
    <${ChangePassword} onChanged=${() => setChanges((n) => n + 1)} />
    <${Sessions} key=${changes} />
  </main>`
}

function ChangePassword({ onChanged }) {
  const form = useForm(
    { currentPassword: '', newPassword: '' },
    async (v) => {
      await post(`${SESSION_URL}/password`, { currentPassword: v.currentPassword, newPassword: v.newPassword })
      onChanged()
      return 'Password changed. Your other sessions are signed out.'
    },
    ['currentPassword', 'newPassword'],
  )
  return html`<form class="card" novalidate onSubmit=${form.onSubmit} aria-labelledby="password-title">
    <h2 id="password-title">Change your password</h2>
    ${form.messages}
    <${Field} label="Current password" id="account-current" errors=${form.errorsOf('currentPassword')}>${(a) =>
      html`<input
        ...${a}
        type="password"
        autocomplete="current-password"
        ...${form.bind('currentPassword')}
      />`}</${Field}>
    <${Field} label="New password" id="account-new" errors=${form.errorsOf('newPassword')}>${(a) =>
      html`<input ...${a} type="password" autocomplete="new-password" ...${form.bind('newPassword')} />`}</${Field}>
    <button type="submit" disabled=${form.busy}>Change password</button>
  </form>`
}

function Sessions() {
  const sessions = useList(() => get(SESSIONS_URL).then((r) => r.sessions))
  const action = useAction()
  const confirm = useConfirm()
  const [busy, setBusy] = useState(false)
  const signOut = (s) =>
    action.run(async () => {
      const name = `${browserName(s.userAgent)}, signed in ${fmtTime(s.createdAt)}`
      const yes = await confirm.ask({
        title: 'Sign out this session?',
        message: `${name} is signed out at once; whoever uses it must sign in again.`,
        confirmLabel: 'Yes, sign out',
      })
      if (!yes) return null
      setBusy(true)
      try {
        await del(`${SESSIONS_URL}/${encodeURIComponent(s.sessionId)}`)
        await sessions.reload()
      } finally {
        setBusy(false)
      }
      return `${name}: signed out.`
    })
  if (sessions.error) return html`<${Alert} messages=${[refusal(sessions.error)]} />`
  return html`<section class="card" aria-labelledby="sessions-title">
    <h2 id="sessions-title">Where you are signed in</h2>
    ${action.messages}
    <table>
      <thead>
        <tr>
          <th scope="col">Browser</th>
          <th scope="col">Signed in</th>
          <th scope="col">Last seen</th>
          <th scope="col">Action</th>
        </tr>
      </thead>
      <tbody>
        ${(sessions.items ?? []).map(
          (s) =>
            html`<tr key=${s.sessionId}>
              <td title=${s.userAgent ?? ''}>${browserName(s.userAgent)}</td>
              <td>${fmtTime(s.createdAt)}</td>
              <td>${fmtTime(s.lastSeenAt)}</td>
              <td>
                ${
                  s.current
                    ? html`<strong>This browser</strong>`
                    : html`<button type="button" class="link" disabled=${busy} onClick=${() => signOut(s)}>
                        Sign out ${browserName(s.userAgent)}, signed in ${fmtTime(s.createdAt)}
                      </button>`
                }
              </td>
            </tr>`,
        )}
      </tbody>
    </table>
    ${confirm.dialog}
  </section>`
}
