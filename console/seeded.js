// A form's draft seeded from what the server holds. It follows the server's value when that value
// changes (the parcel moved, someone else edited it), and not when the same value is only read again:
// a page reloads after each action, and the reload after "Save changes" must not take back the move
// the clerk has begun typing meanwhile.
import { useRef, useState } from 'preact/hooks'

/**
 * [draft, setDraft]: the draft is `value` again whenever `value` changes, in the same render (no frame
 * shows the old draft beside the new facts). setDraft takes a value or a function of the draft.
 */
export function useSeeded(value) {
  const key = JSON.stringify(value)
  const seed = useRef({ key: undefined, draft: undefined })
  const [, redraw] = useState(0)
  if (seed.current.key !== key) seed.current = { key, draft: value }
  const setDraft = (next) => {
    seed.current.draft = typeof next === 'function' ? next(seed.current.draft) : next
    redraw((n) => n + 1)
  }
  return [seed.current.draft, setDraft]
}
