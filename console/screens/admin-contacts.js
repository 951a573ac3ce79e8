// Admin › Contacts: search, each contact with Edit and Delete, a new contact, and a CSV roster
// import with a preview and per-row errors.
import { useState } from 'preact/hooks'
import { get, post, put, del, qs } from '../api.js'
import { html, Field, Alert, refusal } from '../ui.js'
import { RosterImport } from '../csv.js'
import { useForm, useRows, RowsCard, RowActions, EditCard } from '../admin-kit.js'
import { CONTACT_STATUSES, CONTACT_TYPES } from '../vocabulary.js'
import { ContactHolds } from './contact-holds.js'

/** How the desk says each contact type; a type the server adds shows under its own name. */
const TYPE_LABELS = { RECEIVER: 'Recipient', SENDER: 'Sender', ALL: 'Both' }
const FIELDS = ['name', 'email', 'company', 'phone', 'personalId', 'contactType', 'status', 'notify', 'language']

export function Contacts() {
  const [query, setQuery] = useState('')
  const contacts = useRows(() => get(`/api/v1/contacts?${qs({ query, limit: 50 })}`).then((r) => r.contacts), [query])
  const { edit, remove } = contacts
  // One contact at a time (a new resident at the desk); the API's errors show under their field.
  const form = useForm(
    { name: '', email: '', company: '', phone: '', contactType: 'RECEIVER', language: '' },
    async (v) => {
      const body = Object.fromEntries(Object.entries(v).filter(([, x]) => x.trim() !== ''))
      await post('/api/v1/contacts', body)
      await contacts.reload()
      return `Contact ${v.name} created.`
    },
    FIELDS,
  )
  if (contacts.error) return html`<${Alert} messages=${[refusal(contacts.error)]} />`
  return html`<${RowsCard}
      titleId="contacts-title"
      title="Contacts"
      rows=${contacts}
      scrollLabel="Contacts list"
      keyOf=${(c) => c.contactId}
      columns=${[
        ['Name', (c) => c.name],
        ['Email', (c) => c.email ?? ''],
        ['Company', (c) => c.company ?? ''],
        ['Type', (c) => `${c.contactType}${c.status === 'inactive' ? ' (inactive)' : ''}`],
        ['Language', (c) => c.language ?? ''],
      ]}
      actions=${(c) =>
        html`<${RowActions}
          name=${c.name}
          editing=${edit.id === c.contactId}
          onEdit=${() => edit.toggle(c.contactId)}
          onDelete=${() => remove('contact', c.name, () => del(`/api/v1/contacts/${c.contactId}`))}
        />`}
    >
      <div class="field">
        <label for="contacts-q">Search contacts</label>
        <input id="contacts-q" type="search" value=${query} onInput=${(e) => setQuery(e.target.value)} />
      </div>
    </${RowsCard}>
    ${
      edit.id &&
      contacts.items?.some((c) => c.contactId === edit.id) &&
      html`<${EditContact}
        key=${edit.id}
        contact=${contacts.items.find((c) => c.contactId === edit.id)}
        onDone=${edit.done}
        onCancel=${edit.cancel}
      />`
    }
    ${holdsOf(edit.id, contacts.items)}
    <form class="card" novalidate onSubmit=${form.onSubmit} aria-labelledby="new-contact">
      <h2 id="new-contact">New contact</h2>
      ${form.messages}
      <${Field} label="Contact name" id="contact-name" errors=${form.errorsOf('name')}>${(a) => html`<input ...${a} ...${form.bind('name')} />`}</${Field}>
      <${Field} label="Contact email" id="contact-email" errors=${form.errorsOf('email')}>${(a) => html`<input ...${a} type="email" ...${form.bind('email')} />`}</${Field}>
      <${Field} label="Company" id="contact-company" errors=${form.errorsOf('company')}>${(a) => html`<input ...${a} ...${form.bind('company')} />`}</${Field}>
      <${Field} label="Phone" id="contact-phone" errors=${form.errorsOf('phone')}>${(a) => html`<input ...${a} type="tel" ...${form.bind('phone')} />`}</${Field}>
      <${TypeField} form=${form} id="contact-type" />
      <${LanguageField} form=${form} id="contact-language" />
      <button type="submit" disabled=${form.busy}>Create contact</button>
    </form>
    <${RosterImport} onImported=${contacts.reload} />`
}

function TypeField({ form, id }) {
  return html`<${Field} label="Contact type" id=${id} errors=${form.errorsOf('contactType')}>${(a) =>
    html`<select ...${a} ...${form.pick('contactType')}>
      ${CONTACT_TYPES.map((t) => html`<option value=${t}>${TYPE_LABELS[t] ?? t}</option>`)}
    </select>`}</${Field}>`
}

/** The language of the contact's emails: a tag the API checks (its refusal shows here); empty is the subscription's. */
function LanguageField({ form, id }) {
  return html`<${Field}
    label="Email language"
    id=${id}
    hint="A language tag such as en, fr or pt-BR; leave empty for the language of the notification settings."
    errors=${form.errorsOf('language')}
    >${(a) => html`<input ...${a} autocomplete="off" spellcheck="false" ...${form.bind('language')} />`}</${Field}>`
}

/** PUT merges: every field is sent, an emptied optional one as null (cleared). */
function EditContact({ contact, onDone, onCancel }) {
  const text = (k) => contact[k] ?? ''
  const form = useForm(
    {
      name: contact.name,
      email: text('email'),
      company: text('company'),
      phone: text('phone'),
      personalId: text('personalId'),
      contactType: contact.contactType,
      status: contact.status,
      notify: contact.notify,
      language: text('language'),
    },
    async (v) => {
      const optional = (k) => (v[k].trim() === '' ? null : v[k].trim())
      await put(`/api/v1/contacts/${contact.contactId}`, {
        name: v.name,
        email: optional('email'),
        company: optional('company'),
        phone: optional('phone'),
        personalId: optional('personalId'),
        contactType: v.contactType,
        status: v.status,
        notify: v.notify,
        language: optional('language'),
      })
      await onDone(`Contact ${v.name} saved.`)
    },
    FIELDS,
  )
  return html`<${EditCard}
    titleId="edit-contact"
    title=${`Edit contact ${contact.name}`}
    onSubmit=${form.onSubmit}
    messages=${form.messages}
    busy=${form.busy}
    onCancel=${onCancel}
  >
    <${Field} label="Contact name" id="edit-contact-name" errors=${form.errorsOf('name')}>${(a) => html`<input ...${a} ...${form.bind('name')} />`}</${Field}>
    <${Field} label="Contact email" id="edit-contact-email" errors=${form.errorsOf('email')}>${(a) => html`<input ...${a} type="email" ...${form.bind('email')} />`}</${Field}>
    <${Field} label="Company" id="edit-contact-company" errors=${form.errorsOf('company')}>${(a) => html`<input ...${a} ...${form.bind('company')} />`}</${Field}>
    <${Field} label="Phone" id="edit-contact-phone" errors=${form.errorsOf('phone')}>${(a) => html`<input ...${a} type="tel" ...${form.bind('phone')} />`}</${Field}>
    <${Field} label="Personal id" id="edit-contact-pid" errors=${form.errorsOf('personalId')}>${(a) => html`<input ...${a} ...${form.bind('personalId')} />`}</${Field}>
    <${TypeField} form=${form} id="edit-contact-type" />
    <${Field} label="Status" id="edit-contact-status" errors=${form.errorsOf('status')}>${(a) =>
      html`<select ...${a} ...${form.pick('status')}>
        ${CONTACT_STATUSES.map((s) => html`<option value=${s}>${s}</option>`)}
      </select>`}</${Field}>
    <${LanguageField} form=${form} id="edit-contact-language" />
    <label class="check"><input type="checkbox" ...${form.check('notify')} /> Sends notification emails</label>
  </${EditCard}>`
}

/** The holds of the contact being edited (issue 30.2), under its edit card. */
const holdsOf = (id, items) => {
  const contact = id && items?.find((c) => c.contactId === id)
  return contact ? html`<${ContactHolds} key=${`holds-${id}`} contact=${contact} />` : null
}
