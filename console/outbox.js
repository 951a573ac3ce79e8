// The desk's outbox: every parcel the clerk saves is written here first (IndexedDB, so it outlives
// a reload and a browser restart), then sent in order. A parcel keeps one Idempotency-Key and one
// body from its first attempt to its last, so a retry after a lost answer is the server's replay of
// the first save ("Saved"), never a second package nor "already exists". The raw IndexedDB API in
// one module: four calls do not need a library.
import { get, patch, post, unreachable } from './api.js'
import { fromDecode, packageBody, UNKNOWN_FORMAT } from './receiving.js'

const DB_NAME = 'mailroom-console'
const STORE = 'outbox'
/** A save that has not answered after this long is treated as unanswered, and retried with its key. */
const TIMEOUT_MS = 10_000
/** The server's "a request with this key is still running" (GEN-4092): try again later, as is. */
const IN_PROGRESS = 'GEN-4092'

let opened
function database() {
  opened ??= new Promise((resolve, reject) => {
    const req = indexedDB.open(DB_NAME, 1)
    req.onupgradeneeded = () => req.result.createObjectStore(STORE, { keyPath: 'seq', autoIncrement: true })
    req.onsuccess = () => resolve(req.result)
    req.onerror = () => reject(req.error)
  })
  return opened
}

async function inStore(mode, action) {
  const db = await database()
  return new Promise((resolve, reject) => {
    const tx = db.transaction(STORE, mode)
    const req = action(tx.objectStore(STORE))
    tx.oncomplete = () => resolve(req.result)
    tx.onerror = () => reject(tx.error)
    tx.onabort = () => reject(tx.error)
  })
}

/** This clerk's entries, oldest first (another account's stay for that account to send). */
export const queued = async (owner) => (await inStore('readonly', (s) => s.getAll())).filter((e) => e.owner === owner)
const put = (entry) => inStore('readwrite', (s) => s.put(entry))
export const discard = (seq) => inStore('readwrite', (s) => s.delete(seq))

/**
 * Queues one parcel: its scan, its decoded body when the server could decode it (else it is decoded
 * when sent), its recipient and location, and its own Idempotency-Key.
 */
export function enqueue(
  owner,
  {
    raw,
    trackingNumber,
    body,
    recipient,
    location,
    internal = false,
    again = false,
    customFields = [],
    scanIssue,
    flags,
  },
) {
  return put({
    owner,
    key: crypto.randomUUID(),
    raw,
    trackingNumber,
    body,
    recipient,
    location,
    internal,
    again,
    customFields,
    ...(flags?.length ? { flags } : {}),
    // A label photo's recipient left for the scan-issues queue (receive-label.js), opened once saved.
    scanIssue,
    state: 'waiting',
    at: Date.now(),
  })
}

/** A row the clerk settled (confirmed as an internal item): a new body, so a new key. */
export function settle(entry, changes) {
  return put({ ...entry, ...changes, key: crypto.randomUUID(), state: 'waiting', message: undefined })
}

async function bodyOf(entry) {
  if (entry.body) return entry.body
  const d = await get(`/api/v1/packages/tracking/decode?trackingNumber=${encodeURIComponent(entry.raw)}`, {
    timeoutMs: TIMEOUT_MS,
  })
  const item = fromDecode(entry.raw, d)
  if (item.unknownFormat && !entry.internal) return { problem: 'unknown-format', trackingNumber: item.trackingNumber }
  if (item.finished && !entry.again) return { problem: 'handed-over', trackingNumber: item.trackingNumber }
  // Received again: the earlier package, finished with but not archived, still holds the number.
  if (item.finished?.needsArchive)
    await patch(`/api/v1/packages/${item.finished.packageId}/archive`, { archived: true })
  const carrier = entry.internal ? { carrier: { carrierId: 'MAILROOM' } } : {}
  const body = packageBody(item, entry.recipient ?? item.receiver, entry.location, entry.customFields ?? [])
  // The flags the clerk set on a scan decoded offline (issue 30) go with it.
  const flags = entry.flags?.length ? { flags: entry.flags } : {}
  return { ...body, package: { ...body.package, ...carrier, ...flags } }
}

const HANDED_OVER = 'Already handed over: receive it again only if it came back.'

let running
let next
/**
 * Sends this clerk's waiting entries in order; stops at the first one the server does not answer
 * (the order is kept for the next try). A refusal marks its row for the clerk to settle and the
 * others go on. One run at a time: a call during a run gets the run after it, which reads the queue
 * afresh, so what was queued meanwhile is in it.
 */
export function sendQueued(owner, onSaved) {
  next ??= Promise.resolve(running)
    .catch(() => {})
    .then(() => {
      next = undefined
      running = run(owner, onSaved).finally(() => (running = undefined))
      return running
    })
  return next
}

async function run(owner, onSaved) {
  for (const entry of await queued(owner)) {
    if (entry.state !== 'waiting') continue
    try {
      const body = await bodyOf(entry)
      if (body.problem) {
        const message = body.problem === 'handed-over' ? HANDED_OVER : UNKNOWN_FORMAT
        await put({ ...entry, trackingNumber: body.trackingNumber, state: 'conflict', problem: body.problem, message })
        continue
      }
      // Kept before the first attempt: every retry sends these same bytes under this same key.
      if (!entry.body) await put({ ...entry, body, trackingNumber: body.package.trackingNumber })
      const saved = await post('/api/v1/packages', body, { idempotencyKey: entry.key, timeoutMs: TIMEOUT_MS })
      await discard(entry.seq)
      onSaved(saved, entry)
    } catch (err) {
      if (unreachable(err) || err.codes?.includes(IN_PROGRESS)) return false
      await put({
        ...entry,
        body: entry.body,
        state: 'conflict',
        problem: err.codes?.[0] ?? 'refused',
        message: err.message,
      })
    }
  }
  return true
}
