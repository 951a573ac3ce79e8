import type { ColumnType } from 'kysely'

/** Column types as Kysely sees them. One interface per table, named <Table>Table. */
export type Timestamp = ColumnType<Date, Date | string, Date | string>
export type CreatedAt = ColumnType<Date, Date | string | undefined, never>
export type Json<T> = ColumnType<T, string, string>

export interface SubscriptionTable {
  sub_id: string
  name: string
  created_at: CreatedAt
}

export interface AddressJson {
  line1: string
  line2?: string
  city: string
  state: string
  postalCode: string
  country: string
}

export interface LocationTable {
  location_id: string
  sub_id: string
  name: string
  address: Json<AddressJson>
  timezone: string
  carrier_ids: ColumnType<string[], string[] | undefined, string[]>
  created_at: CreatedAt
  updated_at: Timestamp
  /** Migration 0004: locations delete softly, as the sites that keep pointing at them do. */
  deleted_at: ColumnType<Date | null, Date | null | undefined, Date | null>
}

export interface CarrierTable {
  carrier_id: string
  /** null: built into the catalogue, visible to every subscription. */
  sub_id: string | null
  name: string
  scac: string | null
  barcode_aware: boolean
  services: Json<string[]>
  created_at: CreatedAt
}

export type SiteType = 'site' | 'building' | 'floor' | 'room' | 'mailstop' | 'shelf' | 'locker'

export interface InboundSiteTable {
  site_id: string
  sub_id: string
  name: string
  type: SiteType
  parent_id: string | null
  location_id: string | null
  ancestor_ids: ColumnType<string[], string[], string[]>
  path_names: ColumnType<string[], string[], string[]>
  status: 'active' | 'inactive'
  is_primary: boolean
  created_at: Timestamp
  updated_at: Timestamp
  deleted_at: Timestamp | null
}

export interface ContactTable {
  contact_id: string
  sub_id: string
  contact_type: 'SENDER' | 'RECEIVER' | 'ALL'
  name: string
  company: string | null
  email: string | null
  phone: string | null
  personal_id: string | null
  location_site_id: string | null
  mail_stop_site_id: string | null
  status: 'active' | 'inactive'
  /** Recipient emails wanted (default true); the unsubscribe link sets it false. */
  notify: ColumnType<boolean, boolean | undefined, boolean>
  /** The language of its emails (a tag such as `fr`); null: the subscription's. */
  language: ColumnType<string | null, string | null | undefined, string | null>
  match_name: string
  match_company: string | null
  /** Alternate first names and preferred names ("Bob", "Liz"). */
  aliases: ColumnType<string[], string[] | undefined, string[]>
  /** Unit, room, suite or mail stop as labels print it. */
  unit: ColumnType<string | null, string | null | undefined, string | null>
  /** The identity provider's or roster's id for the person; unique among live contacts. */
  external_id: ColumnType<string | null, string | null | undefined, string | null>
  /** The path the record came by. */
  source: ColumnType<ContactSource, ContactSource | undefined, ContactSource>
  /** A group or department contact: business mail addressed to no person. */
  is_group: ColumnType<boolean, boolean | undefined, boolean>
  /** `YYYY-MM-DD` (pg's date type parsed as text, see database.ts). */
  move_in: ColumnType<string | null, string | null | undefined, string | null>
  move_out: ColumnType<string | null, string | null | undefined, string | null>
  created_at: Timestamp
  updated_at: Timestamp
  deleted_at: Timestamp | null
}

export type ContactSource = 'manual' | 'csv' | 'scim' | 'ldap'

export interface CustomFieldTable {
  custom_field_id: string
  sub_id: string
  name: string
  status: 'ACTIVE' | 'INACTIVE'
  data_type: 'TEXT' | 'NUMBER' | 'DATE' | 'BOOLEAN' | 'LIST'
  required: boolean
  options: Json<string[]> | null
  created_at: Timestamp
  updated_at: Timestamp
  deleted_at: Timestamp | null
}

export interface CustomFieldValueJson {
  customFieldId: string
  value: string
}

export interface PackageTable {
  package_id: string
  sub_id: string
  tracking_number: string
  asset_type: 'PACKAGE' | 'POUCH'
  carrier_id: string | null
  current_status: string
  damaged: boolean
  archived: boolean
  timezone: number | null
  sender_id: string | null
  receiver_id: string | null
  given_to_id: string | null
  comment: string | null
  confirmation_type: string | null
  additional_confirmation_type: string | null
  custom_fields: Json<CustomFieldValueJson[]>
  site_id: string | null
  package_location: string | null
  locker_bank: string | null
  locker_unit: string | null
  user_name: string
  receive_clerk: string | null
  delivery_clerk: string | null
  delivery_time: Timestamp | null
  current_route: string | null
  /** The code its recipient collects it with (issue 17.4): set at the add when it arrives waiting. */
  pickup_code: string | null
  /** Migration 0077 (issue 30): PERISHABLE, MEDICATION, … (packages/model/flags.ts). */
  flags: ColumnType<string[], string[] | undefined, string[]>
  /** Migration 0077: when it reached the site it waits at (its holding fee counts from then); null: created_at. */
  site_arrived_at: Timestamp | null
  version: number
  activity_count: number
  event_count: number
  created_at: Timestamp
  updated_at: Timestamp
  archived_at: Timestamp | null
}

export interface PackageActivityTable {
  activity_id: string
  sub_id: string
  package_id: string
  sequence: number
  status: string
  site_id: string | null
  package_location: string | null
  locker_bank: string | null
  locker_unit: string | null
  damaged: boolean
  comment: string | null
  user_name: string
  /** `X-User-Name` as the client sent it: a claim, beside user_name (the authenticated client id). */
  reported_by: string | null
  /** The one-step pickup that delivered the package with this activity, if any. */
  pickup_id: string | null
  occurred_at: Timestamp
}

export interface PickupCodeTable {
  sub_id: string
  code: string
  contact_id: string | null
  created_at: Timestamp
}

export interface PickupImageJson {
  imageId: string
  imageType: string
  contentType: string
  tempURL: string
}

export interface PickupTable {
  pickup_id: string
  sub_id: string
  code: string | null
  contact_id: string | null
  given_to_contact_id: string | null
  given_to_name: string
  package_ids: string[]
  images: Json<PickupImageJson[]>
  comment: string | null
  user_name: string
  clerk: string
  created_at: Timestamp
}

export interface ImageTable {
  image_id: string
  sub_id: string
  content_type: string
  byte_size: number
  sha256: string
  storage_key: string
  package_id: string | null
  activity_id: string | null
  image_level: 'ASSET' | 'ACTIVITY' | null
  image_type: string | null
  created_at: Timestamp
  expires_at: Timestamp | null
}

/** Image bytes in the database, in parts of at most 256 KiB (migration 0014; BLOB_STORE=postgres). */
export interface ImageBlobTable {
  storage_key: string
  part: number
  bytes: Buffer
}

export interface IdempotencyKeyTable {
  sub_id: string
  idempotency_key: string
  request_hash: string
  status_code: number | null
  response_body: string | null
  response_type: string | null
  created_at: Timestamp
}

/**
 * Packages per status along one dimension (migration 0010): `dim` is 'site' (key: the site id, ''
 * for none), 'receiver', 'sender' or 'given_to' (key: the contact id). Kept by triggers on packages.
 */
export interface PackageTallyTable {
  sub_id: string
  dim: 'site' | 'receiver' | 'sender' | 'given_to'
  key: string
  status: string
  n: ColumnType<string, number, number>
}

/** Signed changes to the tallies not folded into package_tallies yet (append-only). */
export interface PackageTallyDeltaTable {
  sub_id: string
  dim: PackageTallyTable['dim']
  key: string
  status: string
  n: number
}

export interface Database {
  subscriptions: SubscriptionTable
  locations: LocationTable
  carriers: CarrierTable
  inbound_sites: InboundSiteTable
  contacts: ContactTable
  custom_fields: CustomFieldTable
  packages: PackageTable
  package_activities: PackageActivityTable
  images: ImageTable
  image_blobs: ImageBlobTable
  idempotency_keys: IdempotencyKeyTable
  package_tallies: PackageTallyTable
  package_tally_deltas: PackageTallyDeltaTable
  pickup_codes: PickupCodeTable
  pickups: PickupTable
}
