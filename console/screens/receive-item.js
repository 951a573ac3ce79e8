// The decoded parcel on Receive: what the scan says (tracking number, carrier, service, label name),
// with the carrier's other readings one key away, and the sentence a screen reader announces.
import { html, Field, Link } from '../ui.js'
import { get } from '../api.js'
import { fromDecode, withRecord, UNKNOWN_FORMAT } from '../receiving.js'

/**
 * A scan as the server decodes it. `editflow`: archived packages count too, and a number on file
 * is read whole (DETAILED), so a parcel handed over or archived today is said so (issue 25 item 3).
 */
export async function decodeScan(raw) {
  const q = `editflow=true&trackingNumber=${encodeURIComponent(raw)}`
  const decoded = fromDecode(raw, await get(`/api/v1/packages/tracking/decode?${q}`, { timeoutMs: 10_000 }))
  if (!decoded.packageId) return decoded
  return withRecord(decoded, await get(`/api/v1/packages/${encodeURIComponent(decoded.packageId)}?type=DETAILED`))
}

/** What a scan decoded to, in one sentence for the live region. */
export function describeScan(item) {
  if (item.offline) return `${item.trackingNumber}: the server cannot be reached; it will be sent when it answers.`
  if (item.unknownFormat) return `${item.trackingNumber}: ${UNKNOWN_FORMAT}`
  const carrier = item.carrier ? ` ${item.carrier.name}` : ''
  const more =
    item.candidates.length > 1
      ? ` (or ${item.candidates
          .slice(1)
          .map((c) => c.name)
          .join(', ')})`
      : ''
  const who = item.receiver ? ` for ${item.receiver.label}` : ''
  const state = item.held
    ? ' Already held.'
    : item.finished && !item.again
      ? ` ${item.finished.text} Open it, or receive it again as a new arrival.`
      : ''
  return `Decoded${carrier}${more} ${item.trackingNumber}${who}.${state}`
}

/**
 * The carrier: the stated one as text; else the best-ranked reading chosen in a list whose arrow
 * keys reach the others (never "Unknown" while the decoder has a reading).
 */
export function CarrierChoice({ item, id, onCarrier, label = 'Carrier' }) {
  if (item.internal) return html`<span>Internal item</span>`
  if (item.offline) return html`<span>Decoded when sent</span>`
  if (item.candidates.length < 2) return html`<span>${item.carrier?.name ?? 'None (not a carrier format)'}</span>`
  return html`<select
    id=${id}
    aria-label=${label}
    value=${item.carrier?.carrierId}
    onChange=${(e) => onCarrier(e.target.value)}
  >
    ${item.candidates.map((c) => html`<option value=${c.carrierId}>${c.name}</option>`)}
  </select>`
}

export function DecodedFacts({ item, onCarrier, onAgain }) {
  return html`<dl class="facts">
      <dt>Tracking number</dt>
      <dd data-testid="decoded-tracking">${item.trackingNumber}</dd>
      <dt>Carrier</dt>
      <dd data-testid="decoded-carrier">
        <${CarrierChoice} item=${item} id="receive-carrier" onCarrier=${onCarrier} />
      </dd>
      ${
        item.service &&
        html`<dt>Service</dt>
          <dd>${item.service}</dd>`
      }
      ${
        item.labelName &&
        html`<dt>Label name</dt>
          <dd>${item.labelName}</dd>`
      }
    </dl>
    ${
      item.held &&
      html`<div class="alert warning" role="alert"><p>Already held (${item.held.status}): this tracking number is on
        the shelf. <${Link} to=${`/packages/${item.held.packageId}`}>Open the package</${Link}> instead of saving it again.</p></div>`
    }
    ${item.finished && html`<${Prior} item=${item} onAgain=${onAgain} />`}`
}

/** The site and shelf every parcel of this desk goes to (kept between scans and page loads). */
export function WhereItGoes({ sites, location, setLocation, errors }) {
  return html`<fieldset class="location">
      <legend>Where it goes</legend>
      <${Field} label="Location" id="receive-site">
        ${(a) =>
          html`<select
            ...${a}
            value=${location.inboundSiteId}
            onChange=${(e) => setLocation({ ...location, inboundSiteId: e.target.value })}
          >
            <option value="">Choose a site…</option>
            ${sites.map((s) => html`<option value=${s.inboundSiteId}>${s.locationHierarchy.replace(/\| /g, ' › ')}</option>`)}
          </select>`}
      </${Field}>
      <${Field} label="Shelf" id="receive-shelf" errors=${errors}>
        ${(a) =>
          html`<input
            ...${a}
            value=${location.packageLocation}
            onInput=${(e) => setLocation({ ...location, packageLocation: e.target.value })}
          />`}
      </${Field}>
    </fieldset>`
}

/** A scan that is no carrier's number: saved only once the clerk says it is an internal item. */
export function UnknownFormat({ onConfirm }) {
  return html`<div class="alert warning" role="alert">
    <p>${UNKNOWN_FORMAT}</p>
    <button type="button" onClick=${onConfirm}>Receive as internal item</button>
  </div>`
}

/**
 * The number was received before and is finished with (issue 25 item 3): when and to whom, and
 * the two next steps, open the earlier package or receive this one as a new arrival. Once the
 * clerk chose the latter, it says so instead.
 */
export function Prior({ item, onAgain }) {
  const { finished } = item
  if (item.again)
    return html`<p class="alert info" role="status">${finished.text} Receiving it again as a new arrival.</p>`
  return html`<div class="alert warning" role="alert">
    <p>${finished.text}</p>
    <p class="row-actions">
      <${Link} to=${`/packages/${finished.packageId}`}>Open it</${Link}>
      <button type="button" class="secondary" onClick=${onAgain}>Receive again as a new arrival</button>
    </p>
  </div>`
}
