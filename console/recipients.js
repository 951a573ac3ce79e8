// The recipient type-ahead of Receive: the API's contacts, and, while the server is unreachable,
// the contacts this page has already seen (the clerk keeps receiving through a network drop).
import { get, unreachable } from './api.js'

const seen = new Map()

/** A contact the page learnt of another way (one just added). */
export const remember = (c) => seen.set(c.id, c)

export async function searchRecipients(q) {
  try {
    const { contacts } = await get(`/api/v1/contacts?query=${encodeURIComponent(q)}&contactType=RECEIVER&limit=8`, {
      timeoutMs: 5_000,
    })
    const found = contacts.map((c) => ({
      id: c.contactId,
      label: c.name,
      detail: [c.company, c.email].filter(Boolean).join(' · '),
    }))
    for (const c of found) remember(c)
    return found
  } catch (err) {
    if (!unreachable(err)) throw err
    const words = q.toLowerCase()
    return [...seen.values()].filter((c) => c.label.toLowerCase().includes(words)).slice(0, 8)
  }
}
