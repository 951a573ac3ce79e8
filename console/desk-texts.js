// A recipient's texts at the hand-over desk (issue 29): the clerk meets the recipient here, with
// their parcels found, and records what they say: email, texts or both, their mobile number, and
// their consent, whose source is the desk. Folded away until opened, so a hand-over is not slowed.
// The contact's phone is its own (PUT /contacts/{id}); the choice and consent are the
// notifications domain's (PUT /notifications/recipients/{id}/channels), both clerk routes.
import { useEffect, useState } from 'preact/hooks'
import { get, put, ApiError } from './api.js'
import { html, Field, Alert, fmtTime } from './ui.js'

const KINDS = ['ARRIVAL', 'REMINDER', 'FINAL_NOTICE', 'PICKED_UP']
const CHOICES = [
  ['', 'As the mailroom decides'],
  ['email', 'Email'],
  ['sms', 'Text (SMS)'],
  ['email,sms', 'Email and text'],
]
/** The source an opt-in taken here is recorded with. */
export const DESK_SOURCE = 'desk (hand-over)'

/** The one choice the desk offers, read from the recipient's per-kind channels (arrivals decide). */
const choiceOf = (kinds) => (kinds.ARRIVAL ?? []).slice().sort().join(',')

function standing(r) {
  if (!r) return 'loading…'
  if (r.sms.stopped) return `replied STOP ${fmtTime(r.sms.stopChangedAt)}: no texts until they reply START`
  if (!r.sms.optedIn) return 'not opted in'
  return `opted in ${fmtTime(r.sms.optedInAt)} (${r.sms.source})`
}

export function DeskTexts({ contactId, name }) {
  const base = `/api/v1/notifications/recipients/${encodeURIComponent(contactId)}/channels`
  const [r, setR] = useState(null)
  const [v, setV] = useState({ phone: '', choice: '', agreed: false })
  const [error, setError] = useState(null)
  const [notice, setNotice] = useState(null)
  const [busy, setBusy] = useState(false)
  const shown = (got) => {
    setR(got)
    setV({ phone: got.sms.phone ?? '', choice: choiceOf(got.kinds), agreed: got.sms.optedIn })
  }
  useEffect(() => {
    setR(null)
    setError(null)
    setNotice(null)
    get(base).then(shown, setError)
  }, [base])

  const save = async (e) => {
    e.preventDefault()
    setError(null)
    setNotice(null)
    const texts = v.choice.includes('sms')
    const problems = []
    if (texts && !v.phone.trim()) problems.push(['phone', 'Enter their mobile number to send texts.'])
    if (texts && !v.agreed) problems.push(['sms.optedIn', 'Texts need their consent: tick that they agree.'])
    if (problems.length > 0)
      return setError(
        new ApiError(400, {
          errors: problems.map(([field, m]) => ({ additionalParameters: field, errorDescription: m })),
        }),
      )
    setBusy(true)
    try {
      const phone = v.phone.trim()
      if (phone !== (r.sms.phone ?? ''))
        await put(`/api/v1/contacts/${encodeURIComponent(contactId)}`, { phone: phone || null })
      const channels = v.choice ? v.choice.split(',') : undefined
      shown(
        await put(base, {
          kinds: channels ? Object.fromEntries(KINDS.map((k) => [k, channels])) : {},
          sms: v.agreed ? { optedIn: true, source: DESK_SOURCE } : { optedIn: false },
        }),
      )
      setNotice(`Texts for ${name} saved.`)
    } catch (err) {
      setError(err)
    } finally {
      setBusy(false)
    }
  }

  const err = error instanceof ApiError ? error : null
  const radio = ([value, label]) =>
    html`<label class="check"
      ><input
        type="radio"
        name="desk-texts-choice"
        value=${value}
        checked=${v.choice === value}
        onChange=${() => setV({ ...v, choice: value })}
      />
      ${label}</label
    >`
  return html`<details class="desk-texts" data-testid="desk-texts">
    <summary>Texts for ${name}: ${standing(r)}</summary>
    <form novalidate onSubmit=${save} aria-label=${`Texts for ${name}`}>
      <${Field} label="Mobile number" id="desk-texts-phone" hint="As they say it; a number without its country code is read in the mailroom's country." errors=${err?.forField('phone') ?? []}>${(
        a,
      ) =>
        html`<input
          ...${a}
          type="tel"
          autocomplete="off"
          value=${v.phone}
          onInput=${(e) => setV({ ...v, phone: e.target.value })}
        />`}</${Field}>
      <fieldset>
        <legend>Tell them about parcels by</legend>
        ${CHOICES.map(radio)}
      </fieldset>
      <label class="check"
        ><input
          type="checkbox"
          id="desk-texts-agreed"
          checked=${v.agreed}
          aria-invalid=${err?.forField('sms').length ? 'true' : undefined}
          onChange=${(e) => setV({ ...v, agreed: e.target.checked })}
        />
        They agree to receive texts (recorded as given at the desk, now)</label
      >
      ${err?.forField('sms').length > 0 && html`<p class="field-error" role="alert">${err.forField('sms').join(' ')}</p>`}
      <div aria-live="polite"><${Alert} kind="info" messages=${notice ? [notice] : []} /></div>
      <${Alert} messages=${error ? (err ? err.unclaimed(['phone', 'sms']) : [error.message]) : []} />
      <button type="submit" class="secondary" disabled=${busy || !r}>Save texts</button>
    </form>
  </details>`
}
