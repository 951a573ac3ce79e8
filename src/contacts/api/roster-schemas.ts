import { Type } from '@sinclair/typebox'
import { ROSTER_FIELDS } from '../model/roster.js'

const Cell = Type.String({ maxLength: 1000 })

export const RosterRowSchema = Type.Object(
  {
    name: Type.Optional(Cell),
    email: Type.Optional(Cell),
    company: Type.Optional(Cell),
    phone: Type.Optional(Cell),
    personalId: Type.Optional(Cell),
    contactType: Type.Optional(Cell),
    language: Type.Optional(Cell),
    externalId: Type.Optional(Cell),
    unit: Type.Optional(Cell),
    status: Type.Optional(Cell),
  } satisfies Record<(typeof ROSTER_FIELDS)[number], unknown>,
  {
    additionalProperties: false,
    description:
      'One roster row as text cells. Cells are trimmed; an empty or absent cell leaves the stored value as it is. `contactType` (any case) defaults to RECEIVER for a new contact. `externalId`: the id of the system the roster comes from (compared exactly). `status`: active or inactive (also yes/no, true/false, left): a row saying inactive deactivates its contact; a contact the file leaves out is never touched.',
  },
)

/** Rows per request: a large campus roster, in one transaction. */
export const MAX_ROSTER_ROWS = 5000

export const ImportRosterSchema = Type.Object(
  {
    rows: Type.Array(RosterRowSchema, { minItems: 1, maxItems: MAX_ROSTER_ROWS }),
    dryRun: Type.Optional(
      Type.Boolean({ description: 'true: answer what the import would do, row by row, and write nothing.' }),
    ),
  },
  { additionalProperties: false },
)

/** An XLSX roster, base64: 2 MB of text: a workbook of tens of thousands of rows (XLSX is compressed). */
export const MAX_XLSX_BASE64 = 2_000_000

export const ReadRosterXlsxSchema = Type.Object(
  {
    xlsx: Type.String({
      minLength: 1,
      maxLength: MAX_XLSX_BASE64,
      pattern: '^[A-Za-z0-9+/]+={0,2}$',
      description: 'The .xlsx file, base64: its first worksheet, the first non-empty row the header.',
    }),
  },
  { additionalProperties: false },
)

export const ReadRosterSchema = Type.Object(
  {
    csv: Type.String({
      minLength: 1,
      maxLength: 900_000,
      description: 'The file as text: comma, semicolon or tab separated (the header line decides), RFC 4180 quoting.',
    }),
  },
  { additionalProperties: false },
)

const RowResult = Type.Object({
  outcome: Type.Unsafe<'created' | 'updated' | 'deactivated' | 'unchanged' | 'invalid'>({
    type: 'string',
    enum: ['created', 'updated', 'deactivated', 'unchanged', 'invalid'],
    description: 'With dryRun, what importing the row would do.',
  }),
  contactId: Type.Optional(Type.String({ description: 'The contact created, updated or matched.' })),
  changes: Type.Optional(Type.Array(Type.String(), { description: 'The fields an update changes.' })),
  errors: Type.Array(Type.Object({ field: Type.String(), message: Type.String() })),
})

export const RosterReportSchema = Type.Object({
  created: Type.Integer(),
  updated: Type.Integer(),
  deactivated: Type.Integer({ description: 'Rows whose status set an active contact inactive.' }),
  unchanged: Type.Integer(),
  invalid: Type.Integer(),
  rows: Type.Array(RowResult, { description: 'One per row, in order.' }),
})

export const ReadRosterReplySchema = Type.Object({
  delimiter: Type.String({ description: 'The separator found: ",", ";" or a tab; "" for an XLSX file.' }),
  columns: Type.Array(
    Type.Object({
      header: Type.String(),
      field: Type.Union([Type.String(), Type.Null()], { description: 'The field it fills; null: ignored.' }),
    }),
  ),
  warnings: Type.Array(Type.String(), { description: 'Ignored columns, a missing name column, an empty file.' }),
  rows: Type.Array(
    Type.Object({
      line: Type.Integer({ description: "The file's line the row ends on (the header is line 1)." }),
      row: RosterRowSchema,
    }),
  ),
  report: RosterReportSchema,
})
