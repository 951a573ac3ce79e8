import type { Static } from '@sinclair/typebox'
import type { ImagesService } from '../../images/index.js'
import type { AddPackage, UpdatePackage, WriteResponseSchema } from '../api/schemas.js'

// What a write's body names and what it answers, as the packages service reads them.

/** What Add and Update answer. */
export type WriteResult = Static<typeof WriteResponseSchema>
export type Attached = Awaited<ReturnType<ImagesService['attach']>>

export const writeResult = (row: { package_id: string; tracking_number: string }, attached: Attached): WriteResult => ({
  packageId: row.package_id,
  trackingNumber: row.tracking_number,
  images: attached.map((a) => ({
    imageId: a.imageId,
    tempURL: a.tempURL,
    contentType: a.contentType,
    imageType: a.imageType,
  })),
})

/** Where a write's site comes from, for the field a problem with it names. */
export const siteFieldOf = (body: AddPackage | UpdatePackage) =>
  body.lastActivity?.location?.inboundSiteId ? 'lastActivity.location.inboundSiteId' : 'package.inboundSiteId'
export const partiesOf = (body: AddPackage | UpdatePackage) => ({
  carrierId: body.package.carrier?.carrierId,
  sender: body.package.sender?.contactId,
  receiver: body.package.receiver?.contactId,
  givenTo: body.package.givenTo?.contactId,
})
