import { Type, type Static } from '@sinclair/typebox'
import { SkipSchema } from '../../platform/http/schemas.js'
import { SHELF_KINDS } from '../model/shelf.js'
import { LABEL_FORMATS, LABEL_SIZES } from '../model/label.js'

const Id = Type.String({ minLength: 1, maxLength: 64, pattern: '^[A-Za-z0-9_-]+$' })
const Scan = Type.String({
  minLength: 1,
  maxLength: 100,
  description: 'A tracking number or a package id, as scanned.',
})
const Kind = Type.Unsafe<(typeof SHELF_KINDS)[number]>({
  type: 'string',
  enum: [...SHELF_KINDS],
  description: 'What the place is called at the desk.',
})

export const ShelfSchema = Type.Object(
  {
    inboundSiteId: Type.String({ description: 'The site of the tree the shelf is (a shelf, locker, room… site).' }),
    code: Type.String({ description: 'The label code: `SHELF-` and six characters, printed as a Code 128.' }),
    kind: Kind,
    name: Type.String(),
    locationHierarchy: Type.String({ description: 'Names root→shelf joined by "| ".' }),
    active: Type.Boolean({ description: 'False once its site is deleted.' }),
  },
  { title: 'Shelf' },
)
export type Shelf = Static<typeof ShelfSchema>

export const ShelfListSchema = Type.Object({ shelves: Type.Array(ShelfSchema) })
export const SiteParams = Type.Object({ inboundSiteId: Id })
export const CodeParams = Type.Object({ code: Type.String({ minLength: 1, maxLength: 40 }) })
export const SaveShelfSchema = Type.Object({ kind: Type.Optional(Kind) }, { additionalProperties: false })

export const LabelQuerySchema = Type.Object({
  inboundSiteId: Type.Optional(
    Type.Array(Id, {
      maxItems: 200,
      description: 'The shelves to print (repeat the parameter); every shelf when absent.',
    }),
  ),
  format: Type.Optional(
    Type.Unsafe<(typeof LABEL_FORMATS)[number]>({
      type: 'string',
      enum: [...LABEL_FORMATS],
      default: 'pdf',
      description: '`pdf` (one page per shelf) or `zpl` (ZPL II for 203 dpi thermal printers).',
    }),
  ),
  size: Type.Optional(
    Type.Unsafe<(typeof LABEL_SIZES)[number]>({
      type: 'string',
      enum: [...LABEL_SIZES],
      default: '4x6',
      description: 'Label stock in inches: `4x6` (portrait) or `2.25x1.25` (landscape).',
    }),
  ),
})

export const ScansSchema = Type.Object(
  { scans: Type.Array(Scan, { minItems: 1, maxItems: 200 }) },
  { additionalProperties: false },
)
export const AuditScansSchema = Type.Object(
  { scans: Type.Array(Scan, { maxItems: 2000 }) },
  { additionalProperties: false },
)

const FILE_OUTCOMES = ['filed', 'already_there', 'not_found', 'finished', 'refused'] as const
export const FileResultSchema = Type.Object({
  scan: Type.String(),
  outcome: Type.Unsafe<(typeof FILE_OUTCOMES)[number]>({
    type: 'string',
    enum: [...FILE_OUTCOMES],
    description:
      "`filed`: moved here (a history entry); `already_there`; `not_found`: no package has this number or id; `finished`: handed over, returned or archived, not moved; `refused`: not moved, `errors` say why (a parcel at a site outside the clerk's, or changed since it was read).",
  }),
  packageId: Type.Optional(Type.String()),
  trackingNumber: Type.Optional(Type.String()),
  status: Type.Optional(Type.String()),
  from: Type.Optional(Type.Union([Type.String(), Type.Null()], { description: 'Where it was recorded before.' })),
  errors: Type.Optional(
    Type.Array(
      Type.Object({
        field: Type.String({ description: 'The field at fault, empty when no one field is.' }),
        description: Type.String(),
        code: Type.String({ description: 'As `additionalCode` of an error response.' }),
      }),
      { description: 'Why a `refused` scan was not moved.' },
    ),
  ),
})
export type FileResult = Static<typeof FileResultSchema>
export const FileResultsSchema = Type.Object({ results: Type.Array(FileResultSchema) })

export const AuditItemSchema = Type.Object({
  packageId: Type.String(),
  trackingNumber: Type.String(),
  recipient: Type.Union([Type.String(), Type.Null()]),
  recordedAt: Type.Union([Type.String(), Type.Null()], { description: 'The site the record names (hierarchy).' }),
})
export type AuditItem = Static<typeof AuditItemSchema>
const AuditItem = AuditItemSchema
export const AuditSchema = Type.Object(
  {
    auditId: Type.String(),
    shelf: ShelfSchema,
    auditedAt: Type.String({ format: 'date-time' }),
    auditedBy: Type.String(),
    found: Type.Array(AuditItem, { description: 'Recorded here and scanned.' }),
    missing: Type.Array(AuditItem, { description: 'Recorded here, waiting, and not scanned.' }),
    misplaced: Type.Array(AuditItem, { description: 'Scanned here, recorded elsewhere (file them here to correct).' }),
    unknown: Type.Array(Type.String(), { description: 'Scans no package answers to.' }),
  },
  { title: 'ShelfAudit' },
)
export type Audit = Static<typeof AuditSchema>

export const AuditParams = Type.Object({ auditId: Id })
export const AuditListQuerySchema = Type.Object(
  {
    inboundSiteId: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 64,
        description: 'Only the audits of this shelf, or of the shelves at or under this site.',
      }),
    ),
    skip: SkipSchema,
    limit: Type.Integer({ minimum: 1, maximum: 200, default: 25 }),
  },
  { additionalProperties: false },
)
export type AuditListQuery = Static<typeof AuditListQuerySchema>

const Count = Type.Integer({ minimum: 0 })
export const AuditSummarySchema = Type.Object(
  {
    auditId: Type.String(),
    inboundSiteId: Type.String({ description: 'The shelf audited.' }),
    shelfName: Type.String({ description: 'Its site’s name now (its id once the site is deleted).' }),
    auditedAt: Type.String({ format: 'date-time' }),
    auditedBy: Type.String(),
    found: Count,
    missing: Count,
    misplaced: Count,
    unknown: Count,
  },
  { title: 'ShelfAuditSummary' },
)
export type AuditSummary = Static<typeof AuditSummarySchema>
export const AuditListSchema = Type.Object({
  audits: Type.Array(AuditSummarySchema),
  hasMore: Type.Boolean({ description: 'True when a next page (skip + limit) has audits.' }),
})
