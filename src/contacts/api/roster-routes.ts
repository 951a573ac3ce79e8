import { Type } from '@sinclair/typebox'
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { errorResponses } from '../../platform/http/schemas.js'
import type { ContactsService } from '../service.js'
import {
  ImportRosterSchema,
  ReadRosterReplySchema,
  ReadRosterSchema,
  ReadRosterXlsxSchema,
  RosterReportSchema,
} from './roster-schemas.js'

const tags = ['contacts']
const security = [{ bearerAuth: [] }]

const MATCHING =
  "A row is the contact with its `externalId` (exactly), else the one whose `personalId` it names, else the contact with its `email` (both ignoring case), else, for a row with none of these, the one contact of its name that has none, else a new contact (source `csv`). A row whose keys name two different contacts, whose id or email several contacts share, or that repeats an earlier row's email or id is invalid: an import never merges people by accident. Never an overwrite of all: a contact the file leaves out stays as it is; only a row whose `status` says inactive deactivates its contact."

/** The roster: read a file, check rows, import them as an upsert, export every contact. */
export const rosterRoutes: FastifyPluginAsyncTypebox<{ contacts: ContactsService }> = async (app, { contacts }) => {
  app.post(
    '/api/v1/contacts/import/csv',
    {
      schema: {
        tags,
        security,
        summary: 'Read a roster file',
        description: [
          'Reads a CSV roster and answers its rows and what importing them would do (the report of a dry run). Writes nothing.',
          'The separator is the one of `,`, `;` and tab that splits the header line into most cells. Headers match ignoring case, spaces and punctuation, with common synonyms: `Full name`, `First name` + `Last name`, `E-mail address`, `Student ID` / `Employee ID` / `External ID` (→ personalId), `Department` (→ company), `Mobile` (→ phone), `Type`, `Language`. Other columns are ignored, each with a warning.',
          'A file csv-parse cannot read (an unclosed quote) is 400 naming `csv`.',
        ].join('\n\n'),
        body: ReadRosterSchema,
        response: { 200: ReadRosterReplySchema, ...errorResponses(400) },
      },
    },
    async (request) => contacts.readRoster(request.tenant.subId, { csv: request.body.csv }),
  )

  app.post(
    '/api/v1/contacts/import/xlsx',
    {
      schema: {
        tags,
        security,
        summary: 'Read a roster spreadsheet (XLSX)',
        description: [
          'Reads the first worksheet of an Excel workbook (base64) as the CSV route reads a file: the first non-empty row is the header (same synonyms), each later row a contact; dates read as YYYY-MM-DD, formulas as their values. Answers the rows (`line`: the spreadsheet row) and what importing them would do. Writes nothing: import the rows with POST /api/v1/contacts/import.',
          'Bytes that are not a workbook are 400 naming `xlsx`.',
        ].join('\n\n'),
        body: ReadRosterXlsxSchema,
        response: { 200: ReadRosterReplySchema, ...errorResponses(400) },
      },
    },
    async (request) => contacts.readRoster(request.tenant.subId, { xlsx: Buffer.from(request.body.xlsx, 'base64') }),
  )

  app.post(
    '/api/v1/contacts/import',
    {
      schema: {
        tags,
        security,
        summary: 'Import roster rows (upsert)',
        description: [
          MATCHING,
          'A matched contact gets the non-empty cells that differ; one with nothing different is left untouched (`unchanged`), so importing the same file twice changes nothing the second time. A new contact is active, notified, RECEIVER unless the row says otherwise.',
          'With `dryRun: true` the answer says row by row what would happen (created, updated, deactivated, unchanged, invalid with its errors) and nothing is written. Otherwise all rows or none: an invalid row is a 400 whose errors name `rows[i].field`, and no row is written.',
        ].join('\n\n'),
        body: ImportRosterSchema,
        response: { 200: RosterReportSchema, ...errorResponses(400) },
      },
    },
    async (request) =>
      request.body.dryRun
        ? contacts.checkRoster(request.tenant.subId, request.body.rows)
        : contacts.importRoster(request.tenant.subId, request.body.rows),
  )

  app.get(
    '/api/v1/contacts/export',
    {
      schema: {
        tags,
        security,
        summary: 'Export contacts as CSV',
        description:
          'Every live contact as RFC 4180 CSV (CRLF) with the header `name,email,company,phone,personalId,contactType,language,externalId,unit,status`, in id order: the import reads it back as it is, unchanged. Cells a spreadsheet would run as formulas start with an apostrophe, which the import removes.',
        response: { 200: Type.String({ description: 'The CSV file.' }), ...errorResponses() },
      },
    },
    async (request, reply) =>
      reply
        .type('text/csv; charset=utf-8')
        .header('Content-Disposition', 'attachment; filename="contacts.csv"')
        // A stream bypasses the serializer; the schema documents the body.
        .send(contacts.exportRoster(request.tenant.subId) as never),
  )
}
