// Shared pieces of the screens: htm bound to Preact, navigation inside the single page, a labelled
// field with the API's errors for it, and the answers to a failed call.
import { h } from 'preact'
import htm from 'htm'

export const html = htm.bind(h)
export const BASE = '/console'

let listener = () => {}
export function onNavigate(fn) {
  listener = fn
}
/** Moves to a console path without reloading the page (the server answers every such path with it too). */
export function navigate(path, { replace = false } = {}) {
  const url = `${BASE}${path}`
  if (replace) history.replaceState(null, '', url)
  else history.pushState(null, '', url)
  listener()
}
window.addEventListener('popstate', () => listener())

/** A link inside the console: a real href (open in a new tab works), routed in place on a plain click. */
export function Link({ to, children, ...rest }) {
  const click = (e) => {
    if (e.button !== 0 || e.metaKey || e.ctrlKey || e.shiftKey) return
    e.preventDefault()
    navigate(to)
  }
  return html`<a href=${BASE + to} onClick=${click} ...${rest}>${children}</a>`
}

let ids = 0
export const newId = (prefix) => `${prefix}-${++ids}`

/**
 * A labelled control with the API's messages for it below (aria-describedby, aria-invalid), so an
 * error is read out with the field it names.
 */
export function Field({ label, id, errors = [], hint, children, className = '' }) {
  const errId = `${id}-error`
  const hintId = hint ? `${id}-hint` : undefined
  const control = children({
    id,
    'aria-invalid': errors.length > 0 ? 'true' : undefined,
    'aria-describedby': [errors.length > 0 ? errId : '', hintId ?? ''].filter(Boolean).join(' ') || undefined,
  })
  return html`<div class="field ${className}">
    <label for=${id}>${label}</label>
    ${control} ${hint && html`<small id=${hintId} class="hint">${hint}</small>`}
    ${errors.length > 0 && html`<p id=${errId} class="field-error" role="alert">${errors.join(' ')}</p>`}
  </div>`
}

export function Alert({ messages, kind = 'error' }) {
  if (!messages || messages.length === 0) return null
  return html`<div class="alert ${kind}" role=${kind === 'error' ? 'alert' : 'status'}>
    ${messages.map((m) => html`<p>${m}</p>`)}
  </div>`
}

/** The text of a refusal: what the page shows when a call it needs fails (403 says who may do it). */
export function refusal(err) {
  if (err?.status === 403) return 'Your role does not allow this: ask an administrator.'
  return err?.message || 'The server could not be reached.'
}

/** A list typed as one comma-separated line ("Same day, Next day"): its items, trimmed, none empty. */
export const commaList = (text) =>
  text
    .split(',')
    .map((item) => item.trim())
    .filter(Boolean)

export const fmtTime = (iso) => (iso ? new Date(iso).toLocaleString() : '')
export const siteName = (ref) => ref?.locationHierarchy?.replace(/\| /g, ' › ') ?? ref?.name ?? ''

/**
 * A screen's actions: `act(what, fn)` is a handler that clears the screen's messages, runs `fn`,
 * says `what` and reloads the screen's data; a refusal shows as the screen's error instead.
 */
export const actionsOf =
  ({ setError, setNotice, load }) =>
  (what, fn) =>
  async (e) => {
    e?.preventDefault()
    setError(null)
    setNotice(null)
    try {
      await fn()
      setNotice(what)
      await load()
    } catch (err) {
      setError(err)
    }
  }

/** Previous and next page buttons; `pages` when the total is known ("Page 2 of 7"), else `more`. */
export function Pager({ label, page, pages, more = pages !== undefined && page < pages, onPage }) {
  if (page <= 1 && !more) return null
  return html`<nav class="pager" aria-label=${label}>
    <button type="button" class="secondary" disabled=${page <= 1} onClick=${() => onPage(page - 1)}>
      Previous page
    </button>
    <span>Page ${page}${pages !== undefined ? ` of ${pages}` : ''}</span>
    <button type="button" class="secondary" disabled=${!more} onClick=${() => onPage(page + 1)}>Next page</button>
  </nav>`
}
