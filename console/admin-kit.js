// The pieces every admin section is built from: a form with the API's field errors, a list that
// reloads, an action with its outcome, the Edit/Delete buttons of a row and the confirmation a
// delete asks for.
import { useEffect, useRef, useState } from 'preact/hooks'
import { ApiError, get, put } from './api.js'
import { html, Alert, refusal } from './ui.js'

/** A form's state, its submit with the API's field errors (`fields` are those the form shows), and a message once done. */
export function useForm(initial, submit, fields) {
  const [values, setValues] = useState(initial)
  const [error, setError] = useState(null)
  const [done, setDone] = useState(null)
  const [busy, setBusy] = useState(false)
  const onSubmit = async (e) => {
    e.preventDefault()
    setError(null)
    setDone(null)
    setBusy(true)
    try {
      // A submit that says nothing gets "Saved."; one that shows its outcome itself answers null.
      const message = await submit(values)
      setDone(message === undefined ? 'Saved.' : message)
      setValues(initial)
    } catch (err) {
      setError(err)
    } finally {
      setBusy(false)
    }
  }
  const err = error instanceof ApiError ? error : null
  const bind = (k) => ({
    value: values[k],
    onInput: (e) => setValues({ ...values, [k]: e.target.value }),
  })
  const check = (k) => ({
    checked: values[k],
    onChange: (e) => setValues({ ...values, [k]: e.target.checked }),
  })
  const pick = (k) => ({
    value: values[k],
    onChange: (e) => setValues({ ...values, [k]: e.target.value }),
  })
  const errorsOf = (...names) => err?.forField(...names) ?? []
  const top = error ? (err ? err.unclaimed(fields) : [error.message]) : []
  /** The form's messages: what the API refused that names no field, and what it did. */
  const messages = html`<${Alert} messages=${top} /><${Alert} kind="info" messages=${done ? [done] : []} />`
  return { values, setValues, onSubmit, bind, check, pick, errorsOf, top, done, busy, messages }
}

/**
 * Settings edited whole (Admin › Texts, Single sign-on, Notifications): read from `url` into the
 * form by `formOf`, saved by a PUT of `bodyOf(values)` whose answer is shown as stored. `run` gives
 * the form's other calls (a preview) the same busy flag and refusal; `values` is null until read.
 */
export function useSettings(url, { formOf, bodyOf, saved }) {
  const [values, setValues] = useState(null)
  const [loadError, setLoadError] = useState(null)
  const [done, setDone] = useState(null)
  const calls = useRun()
  const { error, busy } = calls
  useEffect(() => {
    get(url).then((s) => setValues(formOf(s)), setLoadError)
  }, [])
  const run = (fn) => {
    setDone(null)
    return calls.run(fn)
  }
  const save = (e) => {
    e.preventDefault()
    return run(async () => {
      setValues(formOf(await put(url, bodyOf(values))))
      setDone(saved)
    })
  }
  return { values, setValues, loadError, error, done, setDone, busy, run, save }
}

/** A form's calls one at a time: `busy` while one runs, its refusal in `error` (cleared by the next). */
export function useRun() {
  const [error, setError] = useState(null)
  const [busy, setBusy] = useState(false)
  const run = async (fn) => {
    setBusy(true)
    setError(null)
    try {
      await fn()
    } catch (err) {
      setError(err)
    } finally {
      setBusy(false)
    }
  }
  return { error, busy, run }
}

/** The API's messages for the field `name` and what is inside it (`name.x`, `name[0]`, `name/x`). */
export const fieldErrors = (error, name) =>
  error instanceof ApiError
    ? error.items
        .filter(
          (i) =>
            i.field === name ||
            i.field.startsWith(`${name}.`) ||
            i.field.startsWith(`${name}/`) ||
            i.field.startsWith(`${name}[`),
        )
        .map((i) => i.message)
    : []

/** A list loaded from the API, again after each change (`deps`: when to load afresh). */
export function useList(load, deps = []) {
  const [items, setItems] = useState(null)
  const [error, setError] = useState(null)
  const reload = () => load().then(setItems, setError)
  useEffect(() => void reload(), deps)
  return { items, error, reload }
}

/**
 * An admin list with rows to edit and delete: the list (`load`, again when `deps` change), the
 * outcome of the last action on a row, which row's edit form is open, the confirmation a delete
 * asks for, and `remove(what, name, fn)` that asks, deletes and reloads.
 */
export function useRows(load, deps = []) {
  const list = useList(load, deps)
  const action = useAction()
  const edit = useEditing(list.reload, action)
  const confirm = useConfirm()
  const remove = deleter({ confirm, action, reload: list.reload })
  return { ...list, action, edit, confirm, remove }
}

/**
 * The card of an admin list: its title, the outcome of its last action, what `children` put above
 * the table (a search box), a table of `columns` ([heading, cell of a row]) with each row's
 * `actions` in the last column, and the confirmation dialog. A table wider than a phone is given
 * `scrollLabel`: it scrolls sideways in a region of that name that the keyboard can reach.
 */
export function RowsCard({ titleId, title, rows, columns, keyOf, actions, scrollLabel, children }) {
  const table = html`<table>
    <thead>
      <tr>
        ${columns.map(([heading]) => html`<th scope="col">${heading}</th>`)}
        <th scope="col">Actions</th>
      </tr>
    </thead>
    <tbody>
      ${(rows.items ?? []).map(
        (row) =>
          html`<tr key=${keyOf(row)}>
            ${columns.map(([, cell]) => html`<td>${cell(row)}</td>`)}
            <td>${actions(row)}</td>
          </tr>`,
      )}
    </tbody>
  </table>`
  return html`<section class="card" aria-labelledby=${titleId}>
    <h2 id=${titleId}>${title}</h2>
    ${rows.action.messages} ${children}
    ${scrollLabel ? html`<div class="table-wrap" tabindex="0" role="region" aria-label=${scrollLabel}>${table}</div>` : table}
    ${rows.confirm.dialog}
  </section>`
}

/** A one-off action on a row (delete, rotate, disable): its refusal or its outcome, shown above the list. */
export function useAction() {
  const calls = useRun()
  const { error } = calls
  const [notice, setNotice] = useState(null)
  const run = (fn) =>
    calls.run(async () => {
      setNotice(null)
      setNotice((await fn()) ?? null)
    })
  const messages = html`<${Alert} messages=${error ? [refusal(error)] : []} /><${Alert}
      kind="info"
      messages=${notice ? [notice] : []}
    />`
  return { run, messages, setNotice }
}

/**
 * A confirmation before something that cannot be undone: `ask({title, message, confirmLabel})`
 * resolves true when confirmed; `dialog` is the element to render (a modal <dialog>: focus stays in
 * it, Escape cancels, focus returns to the button that asked).
 */
export function useConfirm() {
  const [request, setRequest] = useState(null)
  const ask = (opts) => new Promise((resolve) => setRequest({ ...opts, resolve }))
  const close = (yes) => {
    request?.resolve(yes)
    setRequest(null)
  }
  const dialog = request && html`<${ConfirmDialog} ...${request} onClose=${close} />`
  return { ask, dialog }
}

function ConfirmDialog({ title, message, confirmLabel, onClose }) {
  const ref = useRef(null)
  useEffect(() => {
    ref.current?.showModal?.()
  }, [])
  const finish = (yes) => {
    ref.current?.close?.()
    onClose(yes)
  }
  return html`<dialog
    ref=${ref}
    class="confirm"
    aria-labelledby="confirm-title"
    aria-describedby="confirm-message"
    onCancel=${(e) => {
      e.preventDefault()
      finish(false)
    }}
  >
    <h2 id="confirm-title">${title}</h2>
    <p id="confirm-message">${message}</p>
    <div class="actions">
      <button type="button" class="danger" onClick=${() => finish(true)}>${confirmLabel}</button>
      <button type="button" class="secondary" autofocus onClick=${() => finish(false)}>Cancel</button>
    </div>
  </dialog>`
}

/**
 * For an edit form that opens below the list: a ref for the <form>, whose first control gets the
 * focus when it opens (a keyboard user lands in it, and the page scrolls to it).
 */
function useFocusOnOpen() {
  const ref = useRef(null)
  useEffect(() => {
    ref.current?.querySelector('input, select, textarea')?.focus()
  }, [])
  return ref
}

/**
 * Which row's edit form is open, and what its outcome does: the form closes, the list is read
 * again and the outcome shows above it. `reload` reads the list.
 */
export function useEditing(reload, action) {
  const [id, setId] = useState(null)
  return {
    id,
    toggle: (rowId) => setId(id === rowId ? null : rowId),
    cancel: () => setId(null),
    done: async (message) => {
      setId(null)
      await reload()
      action.setNotice(message)
    },
  }
}

/**
 * An edit form below a list: titled, the focus in its first control when it opens, the API's
 * messages at its top, and "Save changes" and "Cancel" at its foot.
 */
export function EditCard({ titleId, title, onSubmit, messages, busy, onCancel, children }) {
  const opened = useFocusOnOpen()
  return html`<form class="card" ref=${opened} novalidate onSubmit=${onSubmit} aria-labelledby=${titleId}>
    <h2 id=${titleId}>${title}</h2>
    ${messages} ${children}
    <div class="actions">
      <button type="submit" disabled=${busy}>Save changes</button>
      <button type="button" class="secondary" onClick=${onCancel}>Cancel</button>
    </div>
  </form>`
}

/** A row's "Edit X" and "Delete X" buttons (their names say which row, for screen readers and tests). */
export function RowActions({ name, onEdit, onDelete, editing }) {
  return html`<span class="row-actions">
    ${
      onEdit &&
      html`<button type="button" class="link" aria-expanded=${editing ? 'true' : 'false'} onClick=${onEdit}>
        Edit ${name}
      </button>`
    }
    ${onDelete && html`<button type="button" class="link danger" onClick=${onDelete}>Delete ${name}</button>`}
  </span>`
}

/** Asks, then deletes, then reloads: the refusal (a site with children is 409) shows above the list. */
export function deleter({ confirm, action, reload }) {
  return (what, name, remove) =>
    action.run(async () => {
      const yes = await confirm.ask({
        title: `Delete ${what} ${name}?`,
        message: `${name} is removed from the lists and can no longer be chosen. This cannot be undone here.`,
        confirmLabel: 'Yes, delete',
      })
      if (!yes) return null
      await remove()
      await reload()
      return `${name} deleted.`
    })
}
