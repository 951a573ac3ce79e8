// A screen's unsaved work across a sign-in (issue 25.6): when the session ends under the clerk, the
// shell keeps what the screen's form controls hold (window.sessionStorage: this tab only, gone with it) and
// puts it back once the same person signs in again and the same screen shows. Generic: it reads and
// sets the controls of <main> by id, as a person would type them, so the screen's own handlers run.
// A drawn signature (a canvas marked data-draft) is kept as its picture and drawn back.
// A control that appears only after its form is sent (the decoded parcel below the Scan field, the
// parcels found by a pickup code) is brought back by sending that form again, as Enter did.

const KEY = 'mailroom.draft'
const SKIPPED = new Set(['file', 'password', 'hidden', 'submit', 'button', 'reset', 'image'])

/** The controls of the screen worth keeping: with an id, not secrets or files, not marked data-no-draft. */
function controls() {
  const main = document.getElementById('main')
  if (!main) return []
  return [...main.querySelectorAll('input, textarea, select, canvas[data-draft]')].filter(
    (el) => el.id && !SKIPPED.has(el.type) && !el.closest('[data-no-draft]'),
  )
}

const entryOf = (el) => ({
  id: el.id,
  check: el.type === 'checkbox' || el.type === 'radio',
  value: el.type === 'checkbox' || el.type === 'radio' ? el.checked : el.value,
  picked: false,
})

/**
 * The last lookup sent on the screen: a form with no submit button, sent by Enter in its field (the
 * Scan field, a code). Its screen empties the field and shows what it found (the decoded parcel);
 * sending it again brings that back. A form with a submit button acts (saves) and is never replayed.
 */
let lookup = null
window.addEventListener(
  'submit',
  (e) => {
    const form = e.target
    if (!document.getElementById('main')?.contains(form)) return
    if (form.querySelector('button[type=submit], button:not([type]), input[type=submit]')) {
      lookup = null
      return
    }
    lookup = {
      path: window.location.pathname,
      fields: [...form.elements].filter((el) => el.id && !SKIPPED.has(el.type)).map(entryOf),
    }
  },
  true,
)

/** Keeps the screen's controls for `path` and `userId`; says whether it kept anything (nothing typed: nothing). */
export function saveDraft(path, userId) {
  // The lookup still shows (its fields were emptied by the screen, not by the clerk starting over).
  const replay =
    lookup &&
    lookup.path === window.location.pathname &&
    lookup.fields.some((f) => document.getElementById(f.id)?.value !== f.value)
      ? lookup.fields
      : []
  const entries = controls().map((el) =>
    el.tagName === 'CANVAS'
      ? // A drawn signature (signature.js marks it drawn): kept as its picture.
        { id: el.id, check: false, value: el.dataset.drawn === 'true' ? el.toDataURL('image/png') : '', picked: false }
      : {
          id: el.id,
          check: el.type === 'checkbox' || el.type === 'radio',
          value: el.type === 'checkbox' || el.type === 'radio' ? el.checked : el.value,
          // A combobox whose text is a pick from its list (combobox.js marks it): picked again on restore.
          picked: el.getAttribute('role') === 'combobox' && el.dataset.picked === 'true',
        },
  )
  if (![...entries, ...replay].some((e) => !e.check && String(e.value).trim() !== '')) return false
  try {
    window.sessionStorage.setItem(KEY, JSON.stringify({ path, userId, entries, replay }))
    return true
  } catch {
    // Storage full or refused (private mode): the work is lost as it was before drafts.
    return false
  }
}

function read() {
  try {
    return JSON.parse(window.sessionStorage.getItem(KEY) ?? 'null')
  } catch {
    return null
  }
}

export const dropDraft = () => window.sessionStorage.removeItem(KEY)

/** Resolves with what `find` returns once truthy (the page renders as its data arrives), or null after `ms`. */
function waitFor(find, ms) {
  return new Promise((resolve) => {
    const found = find()
    if (found) return resolve(found)
    const observer = new window.MutationObserver(() => {
      const el = find()
      if (el) {
        clearTimeout(timer)
        observer.disconnect()
        resolve(el)
      }
    })
    observer.observe(document.body, { childList: true, subtree: true, attributes: true })
    const timer = setTimeout(() => {
      observer.disconnect()
      resolve(find() || null)
    }, ms)
  })
}

const setters = {
  INPUT: Object.getOwnPropertyDescriptor(window.HTMLInputElement.prototype, 'value').set,
  TEXTAREA: Object.getOwnPropertyDescriptor(window.HTMLTextAreaElement.prototype, 'value').set,
  SELECT: Object.getOwnPropertyDescriptor(window.HTMLSelectElement.prototype, 'value').set,
}

/** Sets a control as typing or choosing would, so the screen's onInput/onChange keep its state. */
async function apply(el, entry) {
  if (el.tagName === 'CANVAS') {
    // The pad draws it back (signature.js), as if signed again.
    if (entry.value) el.dispatchEvent(new window.CustomEvent('draft-restore', { detail: entry.value }))
    return
  }
  if (entry.check) {
    if (el.checked !== entry.value) el.click()
    return
  }
  if (el.tagName === 'SELECT') {
    // The options come with the screen's data: wait for the one to choose.
    await waitFor(() => [...el.options].some((o) => o.value === entry.value), 3000)
    setters.SELECT.call(el, entry.value)
    el.dispatchEvent(new window.Event('change', { bubbles: true }))
    return
  }
  if (el.value === entry.value) return
  setters[el.tagName].call(el, entry.value)
  el.dispatchEvent(new window.Event('input', { bubbles: true }))
  if (entry.picked) {
    // The list answers the typed text: the option of that name is picked again.
    const listId = el.getAttribute('aria-controls')
    const option = await waitFor(
      () =>
        [...(document.getElementById(listId)?.querySelectorAll('[role=option]') ?? [])].find(
          (o) => o.firstChild?.textContent?.trim() === entry.value.trim(),
        ),
      5000,
    )
    if (option) option.dispatchEvent(new window.MouseEvent('mousedown', { bubbles: true, cancelable: true }))
    // No such option (a pickup code, not a name): Enter, as the clerk pressed.
    else el.dispatchEvent(new window.KeyboardEvent('keydown', { key: 'Enter', bubbles: true, cancelable: true }))
  }
}

/**
 * Puts the draft of `path` back (once: it is dropped as it is read); resolves with whether there was
 * one. Each control is awaited as the screen renders it; one that never appears is asked for by
 * sending the form of the control restored before it.
 */
export async function restoreDraft(path, userId) {
  const draft = read()
  if (!draft) return false
  // Another person signing in on this tab never gets the previous one's work, nor leaves it lying there.
  if (draft.userId !== userId) {
    dropDraft()
    return false
  }
  if (draft.path !== path) return false
  dropDraft()
  // The lookup first (the Scan field and its Enter): what it found is where the other controls are.
  const replayed = new Set()
  for (const entry of draft.replay ?? []) {
    const el = await waitFor(() => document.getElementById(entry.id), 5000)
    if (!el) continue
    await apply(el, entry)
    replayed.add(entry.id)
    if (replayed.size === draft.replay.length) el.form?.requestSubmit()
  }
  let previous = null
  for (const entry of draft.entries) {
    if (replayed.has(entry.id)) continue
    const find = () => document.getElementById(entry.id)
    let el = await waitFor(find, previous ? 800 : 5000)
    if (!el && previous?.form?.isConnected) {
      previous.form.requestSubmit()
      el = await waitFor(find, 5000)
    }
    if (!el) continue
    await apply(el, entry)
    previous = el
  }
  return true
}
