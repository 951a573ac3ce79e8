// The session's end, seen coming (issue 25.6). The server ends a session after `idleSeconds` without
// a request (any request renews that) and `expiresInSeconds` after sign-in whatever happens (no
// renewal). Two minutes before either, the clerk is told: for idleness with a "Stay signed in"
// that makes a request, for the absolute end with the time to expect. At the end the shell keeps
// the screen's work (drafts.js) and asks to sign in, before a save could fail on it.
import { useEffect, useState } from 'preact/hooks'
import { get, lastActivity, SESSION_URL, ApiError } from './api.js'
import { html } from './ui.js'

const WARN_MS = 2 * 60_000
const TICK_MS = 5_000

const clockTime = (ms) => new Date(ms).toLocaleTimeString([], { hour: '2-digit', minute: '2-digit' })

/** What is coming, from the times the session answered with: null, or {kind, at} (epoch ms). */
function ending(idleMs, absoluteAt) {
  // idleSeconds is already what a session surely survives (the window less the server's renewal step).
  const idleAt = lastActivity() + idleMs
  const at = Math.min(idleAt, absoluteAt)
  return { at, kind: at === absoluteAt ? 'absolute' : 'idle' }
}

/** The warning banner; `onExpire` is called once the session is over by these counts. */
export function SessionClock({ idleSeconds, expiresInSeconds, onExpire }) {
  // Counted, as the idle end is, from the sending of the call that answered (api.js, lastActivity).
  const [absoluteAt, setAbsoluteAt] = useState(() => lastActivity() + expiresInSeconds * 1000)
  const [now, setNow] = useState(Date.now())
  const [error, setError] = useState(null)
  useEffect(() => {
    const timer = setInterval(() => setNow(Date.now()), TICK_MS)
    return () => clearInterval(timer)
  }, [])
  const end = ending(idleSeconds * 1000, absoluteAt)
  useEffect(() => {
    if (now >= end.at) onExpire()
  }, [now >= end.at])
  if (now >= end.at || end.at - now > WARN_MS) return null
  const stay = async () => {
    setError(null)
    try {
      const s = await get(SESSION_URL)
      setAbsoluteAt(lastActivity() + s.expiresInSeconds * 1000)
      setNow(Date.now())
    } catch (err) {
      // Already over on the server: the work is kept and sign-in asked for now.
      if (err instanceof ApiError && err.status === 401) return onExpire()
      setError('The server could not be reached: your session may end; your unsaved work will be kept.')
    }
  }
  return html`<div class="session-warning" role="alert">
    ${
      end.kind === 'idle'
        ? html`<p>
            Your session ends at ${clockTime(end.at)} for lack of activity.
            <button type="button" onClick=${stay}>Stay signed in</button>
          </p>`
        : html`<p>
            Your session ends at ${clockTime(end.at)} (the longest a session lasts) and cannot be renewed: you will be
            asked to sign in again, and what you have typed on this screen will be kept.
          </p>`
    }
    ${error && html`<p>${error}</p>`}
  </div>`
}
