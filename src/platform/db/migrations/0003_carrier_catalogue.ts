import type { Kysely } from 'kysely'

// The built-in carrier catalogue as of this migration. Frozen: later changes come as new migrations.
// Ids match the decoder's carrier codes so a decoded carrier links straight to the catalogue.
const CATALOGUE: Array<{ id: string; name: string; scac: string | null; barcodeAware: boolean; services: string[] }> = [
  {
    id: 'UPS',
    name: 'UPS',
    scac: 'UPSN',
    barcodeAware: true,
    services: [
      'Next Day Air',
      'Next Day Air Early',
      'Next Day Air Saver',
      '2nd Day Air',
      '2nd Day Air A.M.',
      '3 Day Select',
      'Ground',
      'Standard',
      'Worldwide Express',
      'Worldwide Expedited',
      'Worldwide Saver',
      'SurePost',
      'Mail Innovations',
    ],
  },
  {
    id: 'FEDEX',
    name: 'FedEx',
    scac: 'FDXE',
    barcodeAware: true,
    services: [
      'Priority Overnight',
      'Standard Overnight',
      'First Overnight',
      '2Day',
      '2Day A.M.',
      'Express Saver',
      'Ground',
      'Home Delivery',
      'Ground Economy',
      'International Priority',
      'International Economy',
      'Freight',
    ],
  },
  {
    id: 'USPS',
    name: 'USPS',
    scac: 'USPS',
    barcodeAware: true,
    services: [
      'Priority Mail Express',
      'Priority Mail',
      'First-Class Mail',
      'Ground Advantage',
      'Parcel Select',
      'Media Mail',
      'Library Mail',
      'Certified Mail',
      'Registered Mail',
      'International',
    ],
  },
  {
    id: 'DHL_EXPRESS',
    name: 'DHL Express',
    scac: 'DHLC',
    barcodeAware: true,
    services: [
      'Express Worldwide',
      'Express 9:00',
      'Express 10:30',
      'Express 12:00',
      'Economy Select',
      'Domestic Express',
    ],
  },
  {
    id: 'DHL_ECOMMERCE',
    name: 'DHL eCommerce',
    scac: 'DHLG',
    barcodeAware: true,
    services: [
      'Parcel Expedited',
      'Parcel Expedited Max',
      'Parcel Ground',
      'Parcel International Direct',
      'Parcel Plus',
    ],
  },
  {
    id: 'AMAZON',
    name: 'Amazon Logistics',
    scac: 'AMZL',
    barcodeAware: true,
    services: ['Standard', 'Same Day', 'Next Day'],
  },
  { id: 'ONTRAC', name: 'OnTrac', scac: 'EMSY', barcodeAware: true, services: ['Ground', 'Sunrise', 'Sunrise Gold'] },
  { id: 'LASERSHIP', name: 'LaserShip', scac: 'LASR', barcodeAware: true, services: ['Ground', 'Next Day'] },
  {
    id: 'CANADA_POST',
    name: 'Canada Post',
    scac: 'CNPT',
    barcodeAware: true,
    services: ['Priority', 'Xpresspost', 'Expedited Parcel', 'Regular Parcel', 'Tracked Packet', 'Small Packet'],
  },
  {
    id: 'PUROLATOR',
    name: 'Purolator',
    scac: 'PURO',
    barcodeAware: true,
    services: ['Express', 'Express 9AM', 'Express 10:30AM', 'Ground', 'Ground Distribution'],
  },
  {
    id: 'ROYAL_MAIL',
    name: 'Royal Mail',
    scac: null,
    barcodeAware: true,
    services: [
      'Special Delivery Guaranteed',
      'Tracked 24',
      'Tracked 48',
      'Signed For 1st Class',
      'Signed For 2nd Class',
      'International Tracked',
    ],
  },
  { id: 'DPD', name: 'DPD', scac: null, barcodeAware: true, services: ['Classic', 'Predict', 'Express', 'Guarantee'] },
  {
    id: 'MAILROOM',
    name: 'Mailroom (internal)',
    scac: null,
    barcodeAware: true,
    services: ['Interoffice', 'Internal Transfer'],
  },
]

export async function up(db: Kysely<any>): Promise<void> {
  await db
    .insertInto('carriers')
    .values(
      CATALOGUE.map((c) => ({
        carrier_id: c.id,
        sub_id: null,
        name: c.name,
        scac: c.scac,
        barcode_aware: c.barcodeAware,
        services: JSON.stringify(c.services),
      })),
    )
    .execute()
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.deleteFrom('carriers').where('sub_id', 'is', null).execute()
}
