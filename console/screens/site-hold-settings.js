// A site's holding fee and return deadline in Admin › Sites' edit form (issue 30): the fee is typed
// as money ("2.50" and EUR) and sent in the currency's minor units with the site's PUT; the deadline
// has its own route (GET/PUT /inboundsites/{id}/returnDeadline), called only when it changed.
import { useEffect, useState } from 'preact/hooks'
import { get, put, ApiError } from '../api.js'
import { html, Field } from '../ui.js'

/** The decimals of a currency (2 for EUR, 0 for JPY); null for what is no currency code. */
function decimalsOf(currency) {
  try {
    return new Intl.NumberFormat('en', { style: 'currency', currency }).resolvedOptions().maximumFractionDigits
  } catch {
    return null
  }
}

/** Minor units as the money a person reads ("2.50"). */
const asMoney = (minor, decimals) => (minor / 10 ** decimals).toFixed(decimals)

/** "2.50" (or "2,50") as minor units, exactly (no floating point); a string saying why not. */
function minorUnits(text, decimals) {
  const m = /^(\d+)(?:[.,](\d*))?$/.exec(text.trim())
  if (!m) return 'Enter an amount such as 2.50.'
  const fraction = m[2] ?? ''
  if (fraction.length > decimals) return `At most ${decimals} decimals in this currency.`
  return Number(m[1]) * 10 ** decimals + Number(fraction.padEnd(decimals, '0') || '0')
}

/** A refusal of the console's own, shaped as the API's: each message shows under the field it names. */
const refuse = (problems) =>
  new ApiError(400, {
    errors: problems.map(([field, message]) => ({ additionalParameters: field, errorDescription: message })),
  })

/** The form's values for a site's own fee (all empty when it has none: as the site above). */
export function feeValues(fee) {
  const decimals = (fee && decimalsOf(fee.currency)) ?? 2
  return {
    feeAmount: fee ? asMoney(fee.amountPerDay, decimals) : '',
    feeCurrency: fee?.currency ?? '',
    feeFreeDays: fee ? String(fee.freeDays) : '',
    feeCap: fee?.cap !== undefined ? asMoney(fee.cap, decimals) : '',
    returnAfterDays: '',
  }
}

const policy = (fee) =>
  fee && {
    freeDays: fee.freeDays,
    amountPerDay: fee.amountPerDay,
    currency: fee.currency,
    ...(fee.cap !== undefined ? { cap: fee.cap } : {}),
  }

/** The fee the form says (null: as the site above); refused here when it is no amount or currency. */
function feeOf(v) {
  if (v.feeAmount.trim() === '') return null
  const currency = v.feeCurrency.trim().toUpperCase()
  const decimals = decimalsOf(currency)
  const problems = []
  if (decimals === null || !/^[A-Z]{3}$/.test(currency))
    problems.push(['holdingFee.currency', 'Enter a currency code such as EUR.'])
  const amount = minorUnits(v.feeAmount, decimals ?? 2)
  if (typeof amount === 'string') problems.push(['holdingFee.amountPerDay', amount])
  const cap = v.feeCap.trim() === '' ? undefined : minorUnits(v.feeCap, decimals ?? 2)
  if (typeof cap === 'string') problems.push(['holdingFee.cap', cap])
  const days = v.feeFreeDays.trim()
  if (days !== '' && !/^\d+$/.test(days)) problems.push(['holdingFee.freeDays', 'Enter a whole number of days.'])
  if (problems.length > 0) throw refuse(problems)
  // The server checks the ranges (free days, the largest amount) and says so under the field.
  return policy({ freeDays: days === '' ? 0 : Number(days), amountPerDay: amount, currency, cap })
}

/** `{holdingFee}` for the site's PUT when the fee changed (null: inherit again), else nothing. */
export function feeChange(v, own) {
  const next = feeOf(v)
  return JSON.stringify(next) === JSON.stringify(policy(own) ?? null) ? {} : { holdingFee: next }
}

/** The site's return deadline, read when the form opens; its own days go into the form's values. */
export function useReturnDeadline(siteId, setValues) {
  const [deadline, setDeadline] = useState(null)
  useEffect(() => {
    get(`/api/v1/inboundsites/${siteId}/returnDeadline`).then(
      (d) => {
        setDeadline(d)
        setValues((v) => ({ ...v, returnAfterDays: d.returnAfterDays === null ? '' : String(d.returnAfterDays) }))
      },
      () => {},
    )
  }, [siteId])
  return deadline
}

/**
 * The deadline's days as the form says them, checked here (whole days, 1–365 as the server asks) so
 * that the site's PUT is not sent when the deadline's would be refused.
 */
export function deadlineChange(v, deadline) {
  const text = v.returnAfterDays.trim()
  const days = text === '' ? null : /^\d+$/.test(text) ? Number(text) : NaN
  if (Number.isNaN(days) || (days !== null && (days < 1 || days > 365)))
    throw refuse([['returnAfterDays', 'Enter a whole number of days from 1 to 365, or leave it empty.']])
  return days === (deadline?.returnAfterDays ?? null) ? undefined : days
}

/** PUT the deadline when it changed (`days` from deadlineChange). */
export const saveDeadline = (siteId, days) =>
  days === undefined ? undefined : put(`/api/v1/inboundsites/${siteId}/returnDeadline`, { returnAfterDays: days })

/** What the form's field lists for the API's errors. */
export const HOLD_FIELDS = ['holdingFee', 'returnAfterDays']

const inherited = (deadline) =>
  deadline?.effective && deadline.returnAfterDays === null ? ` Now: ${deadline.effective.returnAfterDays} days.` : ''

export function SiteHoldSettings({ form, deadline }) {
  const errs = (name) => form.errorsOf(name)
  // A refusal of the fee as a whole (the server's "null or a fee") shows under the amount.
  const parts = ['amountPerDay', 'currency', 'freeDays', 'cap'].map((p) => `holdingFee.${p}`)
  const whole = parts.some((p) => errs(p).length > 0) ? [] : errs('holdingFee')
  const amountHint = 'Money as typed, e.g. 2.50. Empty: as the site above. 0: no fee here.'
  const deadlineHint = `A parcel waiting longer is proposed for return. Empty: as the site above.${inherited(deadline)}`
  return html`<fieldset class="site-fee">
      <legend>Holding fee</legend>
      <${Field} label="Fee per day after the free days" id="edit-site-fee" hint=${amountHint} errors=${[...errs(parts[0]), ...whole]}>${(
        a,
      ) => html`<input ...${a} inputmode="decimal" autocomplete="off" ...${form.bind('feeAmount')} />`}</${Field}>
      <${Field} label="Currency" id="edit-site-fee-currency" hint="ISO code, e.g. EUR." errors=${errs(parts[1])}>${(
        a,
      ) =>
        html`<input
          ...${a}
          maxlength="3"
          autocapitalize="characters"
          autocomplete="off"
          ...${form.bind('feeCurrency')}
        />`}</${Field}>
      <${Field} label="Free days" id="edit-site-fee-free" errors=${errs(parts[2])}>${(a) =>
        html`<input ...${a} inputmode="numeric" autocomplete="off" ...${form.bind('feeFreeDays')} />`}</${Field}>
      <${Field} label="At most per parcel (optional)" id="edit-site-fee-cap" errors=${errs(parts[3])}>${(a) =>
        html`<input ...${a} inputmode="decimal" autocomplete="off" ...${form.bind('feeCap')} />`}</${Field}>
    </fieldset>
    <${Field} label="Return to sender after (days)" id="edit-site-return" hint=${deadlineHint} errors=${errs('returnAfterDays')}>${(
      a,
    ) => html`<input ...${a} inputmode="numeric" autocomplete="off" ...${form.bind('returnAfterDays')} />`}</${Field}>`
}
