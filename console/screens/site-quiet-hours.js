// A site's quiet hours for texts in Admin › Sites' edit form (issue 29), beside its holding fee:
// two HH:MM times sent as `quietHours` with the site's PUT; both empty: as the site above (null),
// and, with no site above setting them, the facility's window (Admin › Notifications › Texts).
import { html, Field } from '../ui.js'
import { ApiError } from '../api.js'

/** The form's values for a site's own window (empty when it has none). */
export const quietValues = (q) => ({ quietStart: q?.start ?? '', quietEnd: q?.end ?? '' })

/** `{quietHours}` for the site's PUT when the window changed (null: inherit again), else nothing. */
export function quietChange(v, own) {
  const start = v.quietStart.trim()
  const end = v.quietEnd.trim()
  // One time without the other is no window: said here, under the empty one, before anything is sent.
  if ((start === '') !== (end === '')) {
    const field = start === '' ? 'quietHours.start' : 'quietHours.end'
    throw new ApiError(400, {
      errors: [{ additionalParameters: field, errorDescription: 'Enter both times, or neither.' }],
    })
  }
  const next = start === '' ? null : { start, end }
  return JSON.stringify(next) === JSON.stringify(own ?? null) ? {} : { quietHours: next }
}

/** What the form's field lists for the API's errors. */
export const QUIET_FIELDS = ['quietHours']

export function SiteQuietHours({ form }) {
  const errs = (name) => form.errorsOf(name)
  // A refusal of the window as a whole shows under its start.
  const whole = errs('quietHours.start').length + errs('quietHours.end').length > 0 ? [] : errs('quietHours')
  const hint =
    'HH:MM, 24-hour, in the site’s time zone. Texts due from the start wait until the end. Empty: as the site above, else the facility’s.'
  return html`<fieldset class="site-quiet">
    <legend>Quiet hours for texts</legend>
    <${Field} label="Quiet from" id="edit-site-quiet-start" hint=${hint} errors=${[...errs('quietHours.start'), ...whole]}>${(
      a,
    ) =>
      html`<input
        ...${a}
        inputmode="numeric"
        placeholder="21:00"
        autocomplete="off"
        ...${form.bind('quietStart')}
      />`}</${Field}>
    <${Field} label="Quiet until" id="edit-site-quiet-end" errors=${errs('quietHours.end')}>${(a) =>
      html`<input
        ...${a}
        inputmode="numeric"
        placeholder="08:00"
        autocomplete="off"
        ...${form.bind('quietEnd')}
      />`}</${Field}>
  </fieldset>`
}
