import type { Kysely } from 'kysely'

// Couriers the decoder names since it reads every format of the public tracking-number catalogue
// (tracking_number_data): built in, barcode-aware. Ids are the decoder's carrier codes. Frozen.
const COURIERS: Array<{ id: string; name: string; scac: string | null; services: string[] }> = [
  { id: 'CANPAR', name: 'Canpar', scac: null, services: ['Ground', 'Select', 'Overnight'] },
  { id: 'OLD_DOMINION', name: 'Old Dominion Freight Line', scac: 'ODFL', services: ['LTL', 'Guaranteed'] },
  { id: 'SPEE_DEE', name: 'Spee-Dee Delivery', scac: null, services: ['Ground'] },
  { id: 'YODEL', name: 'Yodel', scac: null, services: ['Xpect 24', 'Xpect 48', 'Xpress'] },
  { id: 'YUNEXPRESS', name: 'YunExpress', scac: null, services: ['Standard', 'Premium'] },
  { id: 'GOFO', name: 'GOFO Express', scac: null, services: ['Standard'] },
  { id: 'LANDMARK', name: 'Landmark Global', scac: null, services: ['Parcel'] },
]

export async function up(db: Kysely<any>): Promise<void> {
  await db
    .insertInto('carriers')
    .values(
      COURIERS.map((c) => ({
        carrier_id: c.id,
        sub_id: null,
        name: c.name,
        scac: c.scac,
        barcode_aware: true,
        services: JSON.stringify(c.services),
      })),
    )
    .execute()
}

export async function down(db: Kysely<any>): Promise<void> {
  await db
    .deleteFrom('carriers')
    .where(
      'carrier_id',
      'in',
      COURIERS.map((c) => c.id),
    )
    .execute()
}
