import { Type } from '@sinclair/typebox'
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { errorResponses } from '../../platform/http/schemas.js'
import type { ContactsService } from '../service.js'
import { ImportRosterSchema, ReadRosterReplySchema, ReadRosterSchema, RosterReportSchema } from './roster-schemas.js'

const tags = ['contacts']
const security = [{ bearerAuth: [] }]

const MATCHING =
  "A row is the contact whose `personalId` (the roster's external id) it names, else the contact with its `email` (both ignoring case), else, for a row with neither, the one contact of its name that has neither, else a new contact. A row whose id and email name two different contacts, whose id or email several contacts share, or that repeats an earlier row's email or id is invalid: an import never merges people by accident."

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
    async (request) => contacts.readRoster(request.tenant.subId, request.body.csv),
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
          'With `dryRun: true` the answer says row by row what would happen and nothing is written. Otherwise all rows or none: an invalid row is a 400 whose errors name `rows[i].field`, and no row is written.',
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
          'Every live contact as RFC 4180 CSV (CRLF) with the header `name,email,company,phone,personalId,contactType,language`, in id order: the import reads it back as it is, unchanged. Cells a spreadsheet would run as formulas start with an apostrophe, which the import removes.',
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
