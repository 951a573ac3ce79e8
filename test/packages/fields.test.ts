import { KindGuard, type TObject } from '@sinclair/typebox'
import { Value } from '@sinclair/typebox/value'
import { DummyDriver, Kysely, PostgresAdapter, PostgresIntrospector, PostgresQueryCompiler } from 'kysely'
import { describe, expect, it } from 'vitest'
import type { Database } from '../../src/platform/db/tables.js'
import type { PackageRow } from '../../src/packages/model/field-kinds.js'
import { FIELD_ENTRIES, PACKAGE_FIELDS } from '../../src/packages/model/fields.js'
import { PackageRecordSchema, toRecord, type RecordContext } from '../../src/packages/model/record.js'
import { AddPackageSchema, UpdatePackageSchema } from '../../src/packages/api/schemas.js'
import { DIRECT_CELLS, FULL_COLUMNS } from '../../src/search/model/export.js'
import { isMappable } from '../../src/search/model/mapping.js'
import { parseSearch, SEARCH_FIELDS, SORT_FIELDS, type ListFilter } from '../../src/search/model/parse.js'
import { pageQuery } from '../../src/search/store/search.js'
import { validatorOf } from './support-validate.js'

// The package field registry (src/packages/model/fields.ts) is the one home of each field's facts:
// these check that what is built from it agrees with the record, and that every capability it
// declares is served.

const site = {
  inboundSiteId: 'site_1',
  name: 'Shelf',
  type: 'shelf',
  parent: 'site_0',
  locationHierarchy: 'HQ| Shelf',
  ancestorlist: ['site_0'],
  topTier: { inboundSiteId: 'site_0', name: 'HQ' },
  locationId: 'loc_1',
  status: 'active' as const,
  deleted: false,
  holdingFee: { freeDays: 0, amountPerDay: 100, currency: 'EUR' },
}
const contact = (id: string) => ({
  contactId: id,
  contactType: 'ALL' as const,
  name: `Name ${id}`,
  company: 'Co',
  email: `${id}@example.com`,
  phone: '1',
  personalId: 'P',
  locationSiteId: 'site_1',
  mailStopSiteId: null,
  status: 'active' as const,
  deleted: false,
})
const ctx: RecordContext = {
  sites: new Map([['site_1', site]]),
  contacts: new Map(['con_s', 'con_r', 'con_g'].map((id) => [id, contact(id)])),
  carriers: new Map([['ups', { carrierId: 'ups', name: 'UPS' }]]),
  customFields: new Map([['cf_1', { name: 'Dept', status: 'ACTIVE' }]]),
  zips: new Map([['loc_1', '10001']]),
}
const now = new Date('2026-01-02T03:04:05.678Z')
const full: PackageRow = {
  package_id: 'pkg_1',
  sub_id: 'sub_1',
  tracking_number: '1Z',
  asset_type: 'PACKAGE',
  carrier_id: 'ups',
  current_status: 'DELIVERED',
  damaged: true,
  archived: false,
  timezone: -330,
  sender_id: 'con_s',
  receiver_id: 'con_r',
  given_to_id: 'con_g',
  comment: 'fragile',
  confirmation_type: 'SIGNATURE',
  additional_confirmation_type: 'PIN',
  custom_fields: [{ customFieldId: 'cf_1', value: 'Sales' }],
  site_id: 'site_1',
  package_location: 'A1',
  locker_bank: 'North',
  locker_unit: '7',
  user_name: 'client',
  receive_clerk: 'ann',
  delivery_clerk: 'bob',
  delivery_time: now,
  current_route: 'R1',
  pickup_code: 'K7Q4MX',
  flags: ['PERISHABLE', 'MEDICATION'],
  site_arrived_at: new Date('2026-01-01T00:00:00.000Z'),
  version: 3,
  activity_count: 3,
  event_count: 5,
  created_at: now,
  updated_at: now,
  archived_at: null,
}
const bare: PackageRow = {
  ...full,
  carrier_id: null,
  timezone: null,
  sender_id: null,
  receiver_id: null,
  given_to_id: null,
  comment: null,
  confirmation_type: null,
  additional_confirmation_type: null,
  custom_fields: [],
  site_id: null,
  package_location: null,
  locker_bank: null,
  locker_unit: null,
  receive_clerk: null,
  delivery_clerk: null,
  delivery_time: null,
  current_route: null,
  pickup_code: null,
  flags: [],
  site_arrived_at: null,
}

describe('the package field registry and the Package record', () => {
  it('has one record member per entry, in the registry order', () => {
    expect(Object.keys(PackageRecordSchema.properties)).toEqual(Object.keys(PACKAGE_FIELDS))
  })

  it('renders rows, full and bare, as records the schema accepts, with no member outside it', () => {
    for (const row of [full, bare]) {
      const record = toRecord(ctx, row)
      expect(validatorOf(PackageRecordSchema)(record)).toEqual([])
      expect(
        Object.keys(record)
          .filter((k) => record[k as keyof typeof record] !== undefined)
          .every((k) => k in PackageRecordSchema.properties),
      ).toBe(true)
    }
    // Every member of the full row is present: no entry reads a column it does not have.
    const record = toRecord(ctx, full) as Record<string, unknown>
    expect(Object.keys(PACKAGE_FIELDS).filter((k) => record[k] === undefined)).toEqual([])
  })

  it('gives every plain field the record member its kind says, and every other field a reader', () => {
    for (const [name, f] of FIELD_ENTRIES) {
      expect(Boolean(f.read) || Boolean(f.value && f.column), name).toBe(true)
      // A plain nullable column is an optional member; a plain non-null one is required.
      if (f.value)
        expect(KindGuard.IsOptional(f.record), name).toBe(
          f.value === 'text' || f.value === 'integerOrNull' || f.value === 'instantOrNull',
        )
    }
  })

  it('takes every input of the registry in Add and Update, and a `replace` input can be cleared with null', () => {
    const add = (AddPackageSchema.properties.package as TObject).properties
    const update = (UpdatePackageSchema.properties.package as TObject).properties
    for (const [name, f] of FIELD_ENTRIES) {
      if (!f.input) continue
      const input = f.input.name ?? name
      expect(add[input], input).toBeDefined()
      expect(update[input], input).toBeDefined()
      if (f.input.rule === 'replace') expect(Value.Check(f.input.schema, null), input).toBe(true)
    }
  })

  it('names only paths of the record in its search, sort and export lists', () => {
    for (const path of [
      ...SEARCH_FIELDS,
      ...SORT_FIELDS,
      ...FULL_COLUMNS.map((c) => c.path),
      ...Object.keys(DIRECT_CELLS),
    ])
      expect(isMappable(path), path).toBe(true)
  })
})

describe('search conditions from the registry', () => {
  const db = new Kysely<Database>({
    dialect: {
      createAdapter: () => new PostgresAdapter(),
      createDriver: () => new DummyDriver(),
      createIntrospector: (k) => new PostgresIntrospector(k),
      createQueryCompiler: () => new PostgresQueryCompiler(),
    },
  })
  const base: ListFilter = { secondTier: false, includeEmptyPackageLocation: false }

  it('parses every searchable field, and searches each on its own column rather than falling through to custom fields', () => {
    for (const field of SEARCH_FIELDS) {
      for (const position of ['contains', 'starts', 'ends'] as const) {
        const problems: Array<{ field: string; description: string }> = []
        const search = parseSearch(`${field}:abcd`, position, problems)
        expect(problems, field).toEqual([])
        const { sql } = pageQuery(db, 'sub_1', { ...base, search }, { field: 'insertTimestamp', desc: true }, 0, 25)
        expect(sql, field).not.toContain('custom_fields')
      }
    }
    const problems: Array<{ field: string; description: string }> = []
    const custom = parseSearch('customFields.Dept:sales', 'contains', problems)
    expect(
      pageQuery(db, 'sub_1', { ...base, search: custom }, { field: 'insertTimestamp', desc: true }, 0, 25).sql,
    ).toContain('custom_fields')
  })

  it('orders by every sortable field', () => {
    for (const field of SORT_FIELDS) {
      expect(pageQuery(db, 'sub_1', base, { field, desc: false }, 0, 25).sql, field).toMatch(/order by/)
    }
  })
})
