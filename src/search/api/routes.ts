import { Type } from '@sinclair/typebox'
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { errorResponses } from '../../platform/http/schemas.js'
import { mappedPageJson } from '../model/mapping.js'
import { MIN_CONTAINS_LENGTH, SEARCHABLE, SEARCH_FIELDS, SORT_FIELDS } from '../model/parse.js'
import type { SearchService } from '../service.js'

const tags = ['search']
const security = [{ bearerAuth: [] }]
const Id = Type.String({ minLength: 1, maxLength: 64, pattern: '^[A-Za-z0-9_-]+$' })
const common = {
  startDate: Type.Optional(
    Type.String({ description: 'ISO date or time: packages created or updated at or after it.' }),
  ),
  endDate: Type.Optional(
    Type.String({ description: 'ISO date (whole day) or time: created or updated at or before it.' }),
  ),
  page: Type.Optional(Type.Integer({ minimum: 1, maximum: 100_000, description: 'From 1.' })),
  size: Type.Optional(Type.Integer({ minimum: 1, maximum: 200, description: 'Default 25, at most 200.' })),
  status: Type.Optional(
    Type.String({
      maxLength: 300,
      description:
        'Comma list of statuses; UNDELIVERED = all but DELIVERED, PICKED_UP, RETURNED_TO_SENDER, ARCHIVED, FORWARDED.',
    }),
  ),
  sort: Type.Optional(
    Type.String({
      maxLength: 40,
      description: `field,ASC|DESC (default insertTimestamp,DESC); fields: ${SORT_FIELDS.join(', ')}`,
    }),
  ),
}

/** Searches that are index probes (a tracking number, an id): the registry's fields searched as such. */
const PROBE = new RegExp(
  `^(${[...SEARCHABLE]
    .filter(([, s]) => s.kind === 'trackingNumber' || s.kind === 'opaqueId' || s.kind === 'pickupCode')
    .map(([field]) => field.replace('.', '\\.'))
    .join('|')}):`,
)

const wantsCsv = (accept: string | undefined) => /\btext\/csv\b/.test(accept ?? '')

export const searchRoutes: FastifyPluginAsyncTypebox<{ search: SearchService }> = async (app, { search }) => {
  app.get(
    '/api/v1/packages',
    {
      // Tracking-number and id lookups are index probes a clerk fires per scan (gathered per
      // subscription, see trackingLookup): not bounded with the searches that read many rows.
      config: {
        tenantGate: (request) =>
          PROBE.test((request.query as { search?: string }).search ?? '') ? undefined : 'searches',
      },
      schema: {
        tags,
        security,
        summary: 'Search packages',
        description: [
          `\`search=field:value\`, case-insensitive, on ${SEARCH_FIELDS.join(', ')} or \`customFields.<name>\`. Contains by default (at least ${MIN_CONTAINS_LENGTH} characters; trigram index), or \`searchPosition=starts|ends\` (prefix and suffix indexes; any length). Tracking numbers are matched normalised (spaces removed, upper case). \`packageId\` is an opaque id: without \`searchPosition\` it matches the whole id exactly (no contains); \`starts\` / \`ends\` match its beginning or end.`,
          '`totalCount` is the exact number of matches. Ties in the sort order are broken by packageId (in the same direction); packages without a deliveryTime or a receiver come last when sorting on those.',
          "`location`: that site and every site below it. `secondTierSearchSelected=true` extends a name search (receiver/sender/givenTo) to the contacts' email, personalId and company, and to every custom-field value. `includeEmptyPackageLocation=true` makes a packageLocation search also return packages with no packageLocation.",
        ].join('\n\n'),
        querystring: Type.Object(
          {
            search: Type.String({ minLength: 1, maxLength: 200 }),
            searchPosition: Type.Optional(Type.Union([Type.Literal('starts'), Type.Literal('ends')])),
            location: Type.Optional(Id),
            secondTierSearchSelected: Type.Optional(Type.Boolean()),
            includeEmptyPackageLocation: Type.Optional(Type.Boolean()),
            ...common,
          },
          { additionalProperties: false },
        ),
        response: {
          200: Type.Object({ packages: Type.Array(Type.Ref('Package')), totalCount: Type.Integer() }),
          ...errorResponses(400),
        },
      },
    },
    async (request) => {
      return search.list(request.tenant.subId, request.query)
    },
  )

  app.post(
    '/api/v1/packages/search',
    {
      config: { tenantGate: (request) => (wantsCsv(request.headers.accept) ? 'exports' : 'searches') },
      schema: {
        tags,
        security,
        summary: 'Custom search with your own column names (JSON or CSV)',
        description: [
          'Body: `{"<package field or dot.path>": "<label>", …}` — rows keep that order, absent values are `""`; `customFields.<name>` maps one custom field. `{}` returns full records. Unknown fields and duplicate labels are a 400 naming them.',
          'With `Accept: text/csv` the rows stream as RFC 4180 CSV with the labels as header (an empty mapping exports the main fields); every matching row unless `page` or `size` is given, in the same order as the JSON pages, for every `sort`; cells (labels included) a spreadsheet would run as formulas are prefixed with an apostrophe. A database failure after the first rows cuts the response off (no final CRLF, connection closed) rather than ending it as if complete.',
        ].join('\n\n'),
        querystring: Type.Object({ ...common, inboundSiteId: Type.Optional(Id) }, { additionalProperties: false }),
        body: Type.Record(Type.String(), Type.String(), { maxProperties: 200 }),
        response: {
          200: Type.Object({
            packages: Type.Array(Type.Union([Type.Ref('Package'), Type.Record(Type.String(), Type.Unknown())])),
            totalCount: Type.Integer(),
          }),
          ...errorResponses(400),
        },
      },
    },
    async (request, reply) => {
      if (wantsCsv(request.headers.accept)) {
        const stream = await search.exportCsv(
          request.tenant.subId,
          request.query,
          request.body,
          request.log,
          request.heavyTurn,
        )
        return reply
          .type('text/csv; charset=utf-8')
          .header('content-disposition', 'attachment; filename="packages.csv"')
          .send(stream as never)
      }
      const page = await search.custom(request.tenant.subId, request.query, request.body)
      // Mapped rows are serialised in the mapping's order (see mappedPageJson); full records by the schema.
      if ('rows' in page)
        return reply
          .type('application/json; charset=utf-8')
          .send(mappedPageJson(page.columns, page.rows, page.totalCount) as never)
      return page
    },
  )
}
