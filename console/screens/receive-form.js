// Receive's form for one parcel as a hook: the decoded scan, its recipient (chosen, or the text
// typed in the box), an inline "Add contact", and the custom fields. Each scan starts a new form:
// nothing typed for the last parcel carries over.
import { useState } from 'preact/hooks'
import { newId } from '../ui.js'
import { blankValues } from './receive-fields.js'

export function useParcelForm(defs) {
  const [item, setItem] = useState(null)
  const [recipient, setRecipient] = useState(null)
  const [typed, setTyped] = useState('')
  const [adding, setAdding] = useState(null)
  const [values, setValues] = useState({})
  const [fieldErrors, setFieldErrors] = useState({})

  /** The custom fields back to their defaults (defs: the admin's fields, once loaded). */
  const fresh = (d = defs) => {
    setValues(blankValues(d))
    setFieldErrors({})
  }
  return {
    item,
    setItem,
    recipient,
    setRecipient,
    typed,
    setTyped,
    adding,
    setAdding,
    values,
    setValues,
    fieldErrors,
    setFieldErrors,
    fresh,
    /** A new form for this decoded scan, its recipient the one the label named (or the one chosen). */
    start(decoded, chosen) {
      setItem({ ...decoded, key: newId('scan') })
      setRecipient(chosen)
      setTyped('')
      setAdding(null)
      fresh()
    },
    /** No form: the parcel was saved. */
    clear() {
      setItem(null)
      setRecipient(null)
      setTyped('')
      fresh()
    },
  }
}
