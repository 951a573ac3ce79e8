// A combobox with type-ahead (WAI-ARIA APG "editable combobox with list autocomplete"): the list
// comes from the API as the clerk types; arrows move, Enter picks, Escape closes.
import { useLayoutEffect, useRef, useState } from 'preact/hooks'
import { html, Field } from './ui.js'

export function Combobox({
  label,
  id,
  value,
  onPick,
  search,
  errors,
  inputRef,
  onEnterWithoutList,
  hint,
  className = '',
  noMatch,
  onText,
}) {
  const [text, setText] = useState(value?.label ?? '')
  const [options, setOptions] = useState([])
  const [open, setOpen] = useState(false)
  const [active, setActive] = useState(-1)
  // The typed text found nobody: `noMatch(text)` (when given) says so and offers what to do.
  const [empty, setEmpty] = useState(false)
  const seq = useRef(0)
  // The list closes a moment after the box loses focus (a click on an option lands first). A clerk
  // who leaves and comes back within that moment must not have the list they just opened closed by
  // the old blur: coming back cancels it.
  const closing = useRef(0)
  // The text follows a value the page sets (a pick, a record loaded, a reset), but not the clearing of
  // the value that typing causes: that would wipe keys typed before the page re-rendered.
  // A layout effect: it runs as the page renders, before the focus moves here and keys arrive.
  const clearedByTyping = useRef(false)
  useLayoutEffect(() => {
    if (value) setText(value.label)
    else if (!clearedByTyping.current) setText('')
    clearedByTyping.current = false
  }, [value?.id, value?.label])
  const lookUp = async (q) => {
    const n = ++seq.current
    const found = q.trim() ? await search(q.trim()).catch(() => []) : []
    if (n !== seq.current) return // a later keystroke's answer wins
    setOptions(found)
    setEmpty(q.trim() !== '' && found.length === 0)
    setOpen(found.length > 0)
    setActive(found.length > 0 ? 0 : -1)
  }
  const pick = (o) => {
    setText(o.label)
    setOpen(false)
    onPick(o)
  }
  const keyDown = (e) => {
    if (e.key === 'ArrowDown' && options.length) {
      e.preventDefault()
      setOpen(true)
      setActive((a) => Math.min(options.length - 1, a + 1))
    } else if (e.key === 'ArrowUp' && options.length) {
      e.preventDefault()
      setActive((a) => Math.max(0, a - 1))
    } else if (e.key === 'Enter') {
      e.preventDefault()
      if (open && options[active]) pick(options[active])
      else onEnterWithoutList?.()
    } else if (e.key === 'Escape') setOpen(false)
  }
  const listId = `${id}-list`
  return html`<${Field} label=${label} id=${id} errors=${errors} hint=${hint} className=${`combo ${className}`}>
    ${(a) =>
      html`<div class="combo-wrap">
        <input
          ...${a}
          ref=${inputRef}
          role="combobox"
          autocomplete="off"
          aria-autocomplete="list"
          aria-expanded=${open ? 'true' : 'false'}
          aria-controls=${listId}
          aria-activedescendant=${open && active >= 0 ? `${id}-opt-${active}` : undefined}
          data-picked=${value ? 'true' : undefined}
          value=${text}
          onKeyDown=${keyDown}
          onFocus=${() => clearTimeout(closing.current)}
          onBlur=${() => {
            closing.current = setTimeout(() => setOpen(false), 150)
          }}
          onInput=${(e) => {
            setText(e.target.value)
            onText?.(e.target.value)
            if (value) {
              clearedByTyping.current = true
              onPick(null)
            }
            void lookUp(e.target.value)
          }}
        />
        <ul id=${listId} role="listbox" aria-label=${`${label} suggestions`} class="options" hidden=${!open}>
          ${options.map(
            (o, i) =>
              html`<li
                id=${`${id}-opt-${i}`}
                role="option"
                aria-selected=${i === active ? 'true' : 'false'}
                onMouseDown=${(e) => {
                  e.preventDefault()
                  pick(o)
                }}
              >
                ${o.label}${o.detail && html` <small>${o.detail}</small>`}
              </li>`,
          )}
        </ul>
        ${noMatch && empty && !value && text.trim() && noMatch(text.trim())}
      </div>`}
  </${Field}>`
}

/** Type-ahead over the subscription's receivers (name, email or personalId prefix). */
export async function searchContacts(get, q) {
  const { contacts } = await get(`/api/v1/contacts?query=${encodeURIComponent(q)}&contactType=RECEIVER&limit=8`)
  return contacts.map((c) => ({
    id: c.contactId,
    label: c.name,
    detail: [c.company, c.email].filter(Boolean).join(' · '),
  }))
}
