// A parcel's flags and holding fee at the desk (issue 30): toggle chips on Receive, badges on the
// package page and at hand-over, where a medication parcel is announced and the fee due is shown
// before the clerk confirms. The flag words are the API's vocabulary (PACKAGE_FLAGS).
import { html } from '../ui.js'

export const FLAGS = [
  ['PERISHABLE', 'Perishable'],
  ['MEDICATION', 'Medication'],
  ['OVERSIZE', 'Oversize'],
  ['SIGNATURE_REQUIRED', 'Signature required'],
  ['FRAGILE', 'Fragile'],
]
export const flagLabel = (flag) => FLAGS.find(([f]) => f === flag)?.[1] ?? flag

/** Toggle buttons (aria-pressed): Tab reaches each, Space or Enter flips it; the form is not submitted. */
export function FlagChips({ flags = [], onChange, prefix = 'receive-flag' }) {
  const toggle = (f) => onChange(flags.includes(f) ? flags.filter((x) => x !== f) : [...flags, f])
  return html`<fieldset class="flag-chips">
    <legend>Flags</legend>
    ${FLAGS.map(
      ([f, label]) =>
        html`<button
          type="button"
          class="chip"
          id=${`${prefix}-${f}`}
          aria-pressed=${flags.includes(f) ? 'true' : 'false'}
          onClick=${() => toggle(f)}
        >
          ${label}
        </button>`,
    )}
  </fieldset>`
}

export function FlagBadges({ flags }) {
  if (!flags?.length) return null
  return html`<ul class="flags" aria-label="Flags">
    ${flags.map((f) => html`<li class=${`flag flag-${f.toLowerCase()}`}>${flagLabel(f)}</li>`)}
  </ul>`
}

/** An amount in minor units as money of its currency ("€2.50"). */
export function money(amount, currency) {
  try {
    const f = new Intl.NumberFormat(undefined, { style: 'currency', currency })
    return f.format(amount / 10 ** (f.resolvedOptions().maximumFractionDigits ?? 2))
  } catch {
    return `${amount} ${currency}`
  }
}

/** The fee of one parcel, as a line: what it owes now and for how many days. */
export function feeText(fee) {
  if (!fee) return ''
  if (fee.amount === 0) return `Holding fee: free until ${new Date(fee.freeUntil).toLocaleString()}`
  const days = `${fee.chargedDays} day${fee.chargedDays === 1 ? '' : 's'}`
  return `Holding fee: ${money(fee.amount, fee.currency)} (${days}${fee.capped ? ', capped' : ''})`
}

/** The sum of the parcels' fees, per currency ("€5.00 + £1.00"); '' when none owes anything. */
export function feeTotal(parcels) {
  const totals = new Map()
  for (const p of parcels)
    if (p.holdingFee?.amount > 0)
      totals.set(p.holdingFee.currency, (totals.get(p.holdingFee.currency) ?? 0) + p.holdingFee.amount)
  return [...totals].map(([c, a]) => money(a, c)).join(' + ')
}

/** The site's proof rule, made strict by a parcel flagged SIGNATURE_REQUIRED (the server's rule too). */
export function withFlagProof(proof, parcels) {
  return parcels.some((p) => p.flags?.includes('SIGNATURE_REQUIRED')) ? { rule: 'required', photo: false } : proof
}

/** What the clerk must see before "Hand over": medication, signature-required parcels, the fee due. */
export function HandOverNotes({ parcels }) {
  const medication = parcels.filter((p) => p.flags?.includes('MEDICATION')).map((p) => p.trackingNumber)
  const signature = parcels.filter((p) => p.flags?.includes('SIGNATURE_REQUIRED')).map((p) => p.trackingNumber)
  const total = feeTotal(parcels)
  const medicationText = `Medication: ${medication.join(', ')}. Check the collector's identity and hand it over in person.`
  const signatureText = `Signature required for ${signature.join(', ')}, whatever this site's rule.`
  return html`<div class="handover-notes">
    ${medication.length > 0 && html`<p class="alert warning medication" role="alert"><strong>${medicationText}</strong></p>`}
    ${signature.length > 0 && html`<p class="alert warning">${signatureText}</p>`}
    ${total && html`<p class="fee-due" id="pickup-fee">Holding fee due: <strong>${total}</strong></p>`}
  </div>`
}
