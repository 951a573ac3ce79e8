// The console's one door to the server: the public API with the session cookie (the same routes a
// third-party client calls with a bearer token), the CSRF token on every unsafe method.

const API = document.querySelector('meta[name="mailroom-api"]')?.getAttribute('content') ?? ''
/** The webhook interface (package tracking events): its configurations and delivery log. */
export const WEBHOOKS = document.querySelector('meta[name="mailroom-webhooks"]')?.getAttribute('content') ?? ''
export const SESSION_URL = '/console/api/session'
/** An API path the API answers with (an image's `tempURL`, `temp/images/…`) as a URL from any console page. */
export const apiUrl = (path) => `${API}/${path}`.replace(/\/{2,}/g, '/')

let csrfToken = ''
let onExpired = () => {}
let lastAnswer = Date.now()

/**
 * When the session's idle window last surely restarted: the sending of the last call the server
 * answered. The server renews the window when it takes the request, between sending and answer; the
 * answer's time would be later than that by the whole round trip (a slow save, a laptop closed with a
 * call in flight), and the console would then keep a session the server has already ended.
 */
export const lastActivity = () => lastAnswer

export function setCsrfToken(token) {
  csrfToken = token ?? ''
}
/** Called when the server no longer knows the session (idle expiry, sign-out elsewhere). */
export function whenExpired(handler) {
  onExpired = handler
}

/** An answer the API refused: its status, its message and the fields its errors[] name. */
export class ApiError extends Error {
  constructor(status, body) {
    const items = Array.isArray(body?.errors) ? body.errors : []
    super(body?.message ?? items.map((e) => e.errorDescription).join(' ') ?? `HTTP ${status}`)
    this.status = status
    this.items = items.map((e) => ({ field: e.additionalParameters ?? '', message: e.errorDescription ?? e.errorCode }))
    /** The stable codes of the refusal (PKG-4090…): what a screen tells apart without reading messages. */
    this.codes = items.map((e) => e.additionalCode).filter(Boolean)
  }
  /** The messages for a field the form calls `name` (the API names `package.receiver.contactId`…). */
  forField(...names) {
    return this.items
      .filter((i) => i.field && names.some((n) => i.field === n || i.field.startsWith(`${n}.`)))
      .map((i) => i.message)
  }
  /** Messages that name no field of `known`: shown at the top of the form. */
  unclaimed(known) {
    const rest = this.items.filter((i) => !i.field || !known.some((n) => i.field === n || i.field.startsWith(`${n}.`)))
    if (rest.length === 0 && this.items.length === 0) return [this.message || `The server answered ${this.status}.`]
    return rest.map((i) => (i.field ? `${i.field}: ${i.message}` : i.message))
  }
}

const UNSAFE = new Set(['POST', 'PUT', 'PATCH', 'DELETE'])

function randomKey() {
  return crypto.randomUUID()
}

/** A call to `path` (absolute for the session, else under the API prefix); JSON in, JSON (or text) out. */
export async function call(method, path, body, opts = {}) {
  const headers = { accept: opts.accept ?? 'application/json' }
  if (body !== undefined) headers['content-type'] = 'application/json'
  if (UNSAFE.has(method)) headers['x-csrf-token'] = csrfToken
  // Paths of the console's own API and of the webhook interface (opts.raw) are used as they are.
  const own = path.startsWith('/console/')
  // A retried POST to the API (the desk's network hiccups) must not make a second package; the
  // console's own routes (sign-in, password) are not idempotent-keyed.
  if (method === 'POST' && !own) headers['idempotency-key'] = opts.idempotencyKey ?? randomKey()
  const url = own || opts.raw ? path : `${API}${path}`
  const send = () =>
    fetch(url, {
      method,
      headers,
      body: body === undefined ? undefined : JSON.stringify(body),
      credentials: 'same-origin',
      signal: opts.timeoutMs ? AbortSignal.timeout(opts.timeoutMs) : undefined,
    })
  let sentAt = Date.now()
  let res = await send()
  // Searches are bounded per subscription (several clerks at once): a 429 says when to come back.
  for (let retry = 0; res.status === 429 && path !== SESSION_URL && retry < 3; retry++) {
    const seconds = Math.min(3, Number(res.headers.get('retry-after')) || 1)
    await new Promise((resolve) => setTimeout(resolve, seconds * 1000))
    sentAt = Date.now()
    res = await send()
  }
  if (res.status !== 401) lastAnswer = Math.max(lastAnswer, sentAt)
  if (res.status === 204) return undefined
  const text = await res.text()
  const type = res.headers.get('content-type') ?? ''
  const parsed = type.includes('json') && text ? JSON.parse(text) : text
  if (!res.ok) {
    if (res.status === 401 && path !== SESSION_URL) onExpired()
    throw new ApiError(res.status, typeof parsed === 'object' ? parsed : { message: text })
  }
  return parsed
}

/**
 * The server did not answer (offline, a timeout, a dropped connection) or could not serve (5xx):
 * the same request may succeed later, unlike a refusal (4xx), which would be refused again.
 */
export const unreachable = (err) => !(err instanceof ApiError) || err.status >= 500 || err.status === 408

export const get = (path, opts) => call('GET', path, undefined, opts)
export const post = (path, body, opts) => call('POST', path, body, opts)
export const put = (path, body) => call('PUT', path, body)
export const patch = (path, body) => call('PATCH', path, body)
export const del = (path) => call('DELETE', path)

export const qs = (params) =>
  new URLSearchParams(Object.entries(params).filter(([, v]) => v !== undefined && v !== '' && v !== null)).toString()
