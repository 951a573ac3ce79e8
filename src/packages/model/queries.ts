import type { Db } from '../../platform/db/database.js'
import type { Clock } from '../../platform/kit/clock.js'
import type { ImagesService } from '../../images/index.js'
import { batchPerSubscription, type SubscriptionLookup } from '../../platform/kit/batch.js'
import { AppError } from '../../platform/kit/errors.js'
import type { PackageReaders } from './deps.js'
import { PACKAGE_ERRORS } from './errors.js'
import { loadRecords, type RecordFilter } from '../store/read.js'
import { toRecord, type PackageRecord } from './record.js'
import { siteRefOf } from './refs.js'
import * as repo from '../store/packages.js'
import { normalizeTrackingNumber } from './tracking-number.js'

/** The reads of the packages domain: records, activities, images, and the current row the commands start from. */
export function createPackageQueries(deps: { db: Db; readers: PackageReaders; images: ImagesService; clock: Clock }) {
  const { db, readers, images } = deps

  /** DETAILED records by one column; concurrent requests' single reads go as one query (see batchPerSubscription). */
  const recordsBy =
    (
      filter: (keys: string[]) => RecordFilter,
      keyOf: (row: repo.PackageRow) => string,
    ): SubscriptionLookup<PackageRecord> =>
    async (subId, keys) => {
      const { rows, ctx } = await loadRecords(db, readers, subId, filter(keys))
      ctx.now = deps.clock.now()
      return new Map(rows.map((r) => [keyOf(r), toRecord(ctx, r)]))
    }
  /** The package row as it is now, outside any transaction; concurrent requests' reads go as one query. */
  const rowById = batchPerSubscription(
    async (subId, packageIds) =>
      new Map((await repo.findPackages(db, subId, packageIds)).map((r) => [r.package_id, r])),
  )
  const recordById = batchPerSubscription(
    recordsBy(
      (packageIds) => ({ packageIds }),
      (r) => r.package_id,
    ),
  )
  const recordByTrackingNumber = batchPerSubscription(
    recordsBy(
      (trackingNumbers) => ({ trackingNumbers }),
      (r) => r.tracking_number,
    ),
  )

  async function existingRow(subId: string, packageId: string): Promise<repo.PackageRow> {
    const row = await rowById(subId, packageId)
    if (!row) throw new AppError(PACKAGE_ERRORS.PACKAGE_NOT_FOUND)
    return row
  }

  return {
    rowById,

    async getDetailed(subId: string, packageId: string): Promise<PackageRecord> {
      const rec = await recordById(subId, packageId)
      if (!rec) throw new AppError(PACKAGE_ERRORS.PACKAGE_NOT_FOUND)
      return rec
    },

    /**
     * The DETAILED records of these packages, in the order of `packageIds` (a search page's);
     * unknown ids are left out. Read through the gathered record read, so the pages of concurrent
     * searches (and Gets) share one query per turn instead of a round trip each.
     */
    async recordsByIds(subId: string, packageIds: string[]): Promise<PackageRecord[]> {
      const recs = await Promise.all(packageIds.map((id) => recordById(subId, id)))
      return recs.filter((r): r is PackageRecord => r !== undefined)
    },

    /** The active package with this number (archived ones too when `includeArchived`), or undefined. */
    async findByTrackingNumber(
      subId: string,
      trackingNumber: string,
      includeArchived = false,
    ): Promise<PackageRecord | undefined> {
      const rec = await recordByTrackingNumber(subId, normalizeTrackingNumber(trackingNumber))
      return rec && (!rec.archived || includeArchived) ? rec : undefined
    },

    async getByTrackingNumber(subId: string, trackingNumber: string): Promise<PackageRecord> {
      const rec = await recordByTrackingNumber(subId, normalizeTrackingNumber(trackingNumber))
      if (!rec) throw new AppError(PACKAGE_ERRORS.PACKAGE_NOT_FOUND)
      return rec
    },

    async getActivities(subId: string, packageId: string) {
      const row = await existingRow(subId, packageId)
      const [acts, imgs] = await Promise.all([
        repo.listActivities(db, subId, packageId),
        images.listForPackage(subId, packageId),
      ])
      const sites = await readers.sites.getInfos(
        subId,
        acts.map((a) => a.site_id).filter((x): x is string => !!x),
      )
      return {
        packageId,
        trackingNumber: row.tracking_number,
        activities: acts.map((a) => ({
          activityId: a.activity_id,
          sequence: a.sequence,
          status: a.status,
          location: siteRefOf(a.site_id ? sites.get(a.site_id) : undefined),
          packageLocation: a.package_location ?? undefined,
          lockerBank: a.locker_bank ?? undefined,
          lockerUnit: a.locker_unit ?? undefined,
          damaged: a.damaged,
          comment: a.comment ?? undefined,
          userName: a.user_name,
          ...(a.reported_by ? { reportedBy: a.reported_by } : {}),
          ...(a.pickup_id ? { pickupId: a.pickup_id } : {}),
          occurredAt: a.occurred_at.toISOString(),
          images: imgs
            .filter((i) => i.activityId === a.activity_id)
            .map((i) => ({
              imageId: i.imageId,
              tempURL: i.tempURL,
              contentType: i.contentType,
              imageType: i.imageType,
            })),
        })),
      }
    },

    async getImages(subId: string, packageId: string) {
      const row = await existingRow(subId, packageId)
      return { packageId, trackingNumber: row.tracking_number, images: await images.listForPackage(subId, packageId) }
    },
  }
}
