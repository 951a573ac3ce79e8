// Receive, one parcel at a time: the decoded facts, the recipient (type-ahead, "No match" with
// "Add contact" inline), the admin's custom fields, a photo, and Save. The screen (receive.js)
// keeps the state; this is its form.
import { html, Field } from '../ui.js'
import { Combobox } from '../combobox.js'
import { HoldNote } from '../hold-note.js'
import { AddContact } from '../add-contact.js'
import { remember, searchRecipients } from '../recipients.js'
import { withCarrier, INTERNAL } from '../receiving.js'
import { DecodedFacts, UnknownFormat } from './receive-item.js'
import { CustomFieldInputs } from './receive-fields.js'
import { FlagChips } from './parcel-flags.js'

export function SingleItem({ s, refs, err, busy, onSave, onCancel, onAgain }) {
  const { item, setItem, recipient, setRecipient, adding, setAdding } = s
  const focus = (ref) => setTimeout(() => ref.current?.focus(), 0)
  const noMatch = (text) =>
    html`<p class="no-match" role="status">
      No match for “${text}”.
      <button type="button" class="secondary" onClick=${() => setAdding(text)}>Add contact</button>
    </p>`
  return html`<form key=${item.key} class="decoded card" onSubmit=${onSave} aria-label="Package to save">
    <${DecodedFacts} item=${item} onCarrier=${(id) => setItem(withCarrier(item, id))} onAgain=${onAgain} />
    ${
      item.unknownFormat
        ? html`<${UnknownFormat}
            onConfirm=${() => {
              setItem(withCarrier(item, INTERNAL.carrierId))
              focus(refs.recipient)
            }}
          />`
        : html`
      <${Combobox} label="Recipient" id="receive-recipient" value=${recipient} inputRef=${refs.recipient}
        search=${searchRecipients} errors=${err?.forField('package.receiver') ?? []}
        noMatch=${noMatch} onText=${s.setTyped}
        onPick=${(o) => {
          setRecipient(o)
          if (o) focus(refs.save)
        }} onEnterWithoutList=${() => refs.save.current?.focus()} />
      <${HoldNote} contactId=${recipient?.id} />
      ${
        adding !== null &&
        html`<${AddContact}
          name=${adding}
          sites=${s.sites}
          onAdded=${(c) => {
            remember(c)
            setRecipient(c)
            setAdding(null)
            s.say(`${c.label} added.`)
            focus(refs.save)
          }}
          onCancel=${() => {
            setAdding(null)
            refs.recipient.current?.focus()
          }}
        />`
      }
      <${CustomFieldInputs} defs=${s.defs} values=${s.values} onChange=${s.setValues} errors=${s.fieldErrors}
        serverErrors=${err?.forField('package.customFields') ?? []} prefix="receive-cf" />
      <${FlagChips} flags=${item.flags ?? []} onChange=${(flags) => setItem({ ...item, flags })} />
      <${Field} label="Photo (optional)" id="receive-photo" errors=${err?.forField('images') ?? []}>
        ${(a) => html`<input ...${a} ref=${refs.photo} type="file" accept="image/*" capture="environment" />`}
      </${Field}>
      <div class="actions">
        <button type="submit" id="save-package" ref=${refs.save} disabled=${busy || adding !== null}>Save package</button>
        <button type="button" class="secondary" onClick=${onCancel}>Cancel</button>
      </div>`
    }
  </form>`
}
