// What Save puts in the outbox for one parcel: the package body (none for a scan decoded offline:
// the outbox decodes it when sent), the label photo read for it and a photo taken of it, and the
// scan issue to open when a label photo named no known recipient.
import { post } from '../api.js'
import { enqueue } from '../outbox.js'
import { packageBody } from '../receiving.js'
import { uploadImage } from '../data.js'
import { scanIssueOf } from './receive-label.js'

export async function enqueueParcel(owner, { item, recipient, location, customFields, labelRead, photo }) {
  const body = item.offline ? undefined : packageBody(item, recipient, location, customFields)
  if (body && labelRead) body.images = [{ imageLevel: 'ASSET', imageType: 'LABEL', tempURL: labelRead.image.tempURL }]
  if (photo && body) {
    const image = await uploadImage(post, photo)
    body.images = [...(body.images ?? []), { imageLevel: 'ASSET', imageType: 'PHOTO', tempURL: image.tempURL }]
  }
  const { raw, trackingNumber, internal = false } = item
  const again = Boolean(item.again)
  const scanIssue = labelRead && !recipient ? scanIssueOf(labelRead, location) : undefined
  const seq = await enqueue(owner, {
    raw,
    trackingNumber,
    body,
    recipient,
    location,
    internal,
    again,
    customFields,
    scanIssue,
    flags: item.flags,
  })
  // Its outbox entry: a shelf label scanned next files this one (receive-shelf.js).
  return { seq, trackingNumber: trackingNumber ?? raw }
}
