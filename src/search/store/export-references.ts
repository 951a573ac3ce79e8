import type { Executor } from '../../platform/db/transaction.js'
import { carrierNames } from '../../carriers/index.js'
import { fieldNames } from '../../customfields/index.js'
import { postalCodes } from '../../locations/index.js'
import { sitesForExport } from '../../sites/index.js'

/**
 * What the records of an export refer to, read once per export rather than per package: every
 * site of the subscription (deleted ones too: packages keep their history), carriers, custom-field
 * definitions, and the locations' postal codes, each from the domain that owns it. Contacts are
 * read per batch (contacts' contactsForExport). The same data as the per-page read model (packages/store/read.ts),
 * set-based for millions of rows.
 */
export async function exportReferences(db: Executor, subId: string) {
  const [sites, carriers, fields, zips] = await Promise.all([
    sitesForExport(db, subId),
    carrierNames(db, subId),
    fieldNames(db, subId),
    postalCodes(db, subId),
  ])
  return { sites, carriers, fields, zips }
}
