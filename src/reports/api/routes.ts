import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { Type } from '@sinclair/typebox'
import { errorResponses } from '../../platform/http/schemas.js'
import type { ReportsService } from '../service.js'
import type { SummaryService } from '../summary-service.js'
import {
  ReportQuerySchema,
  ReportSchema,
  SummaryEmailSchema,
  SummaryRecipientBody,
  SummaryRecipientParams,
  TableParams,
} from './schemas.js'

const tags = ['reports']
const security = [{ bearerAuth: [] }]
const ABOUT =
  "Counted from the report tallies (kept by the database as packages change), never by reading the packages: a day is when a parcel arrived (created in a waiting status, or announced and then arrived) or was handed over (its deliveryTime), on the date of its site's nearest location's time zone as it was when counted (UTC without one). Dwell is from creation to hand-over, as a histogram of hour buckets, so the median and 90th percentile are precise to their bucket (an hour up to 2 h, a day past two days). Clerks are counted over every site. From and to default to the 30 days up to today; at most 400 days."

/** Issue 30.4: the month a manager reads. */
export const reportsRoutes: FastifyPluginAsyncTypebox<{ reports: ReportsService; summary: SummaryService }> = async (
  app,
  { reports, summary },
) => {
  app.get(
    '/api/v1/reports',
    {
      schema: {
        tags,
        security,
        summary: 'Received, handed over, dwell and clerk activity per day or week',
        description: ABOUT,
        querystring: ReportQuerySchema,
        response: { 200: ReportSchema, ...errorResponses(400) },
      },
    },
    async (request) => reports.report(request.tenant.subId, request.query),
  )

  app.get(
    '/api/v1/reports/:table/csv',
    {
      schema: {
        tags,
        security,
        summary: 'One table of the report as CSV',
        description: `\`volume\`, \`dwell\` or \`clerks\`, as RFC 4180 CSV with a header row; the same query as GET /api/v1/reports. ${ABOUT}`,
        params: TableParams,
        querystring: ReportQuerySchema,
        response: {
          200: { description: 'CSV.', content: { 'text/csv': { schema: Type.String() } } },
          ...errorResponses(400),
        },
      },
    },
    async (request, reply) =>
      reply
        .type('text/csv; charset=utf-8')
        .header('content-disposition', `attachment; filename="report-${request.params.table}.csv"`)
        .send(await reports.reportCsv(request.tenant.subId, request.params.table, request.query)),
  )

  app.get(
    '/api/v1/reports/summary-email',
    {
      schema: {
        tags,
        security,
        summary: 'The daily summary email: when it goes and which admins get it',
        description:
          "Once a day, from the local hour, each admin who opted in gets the day before's received and handed over per site, the oldest waiting, how many wait past the unclaimed days and the notifications sent and failed, with a link to the console's reports.",
        response: { 200: SummaryEmailSchema, ...errorResponses(400) },
      },
    },
    async (request) => summary.settings(request.tenant.subId),
  )

  app.put(
    '/api/v1/reports/summary-email/recipients/:userId',
    {
      schema: {
        tags,
        security,
        summary: 'Opt an admin in to (or out of) the daily summary email',
        description: 'An active admin of the subscription (else 400 naming `userId`); answers the summary settings.',
        params: SummaryRecipientParams,
        body: SummaryRecipientBody,
        response: { 200: SummaryEmailSchema, ...errorResponses(400) },
      },
    },
    async (request) => summary.setRecipient(request.tenant.subId, request.params.userId, request.body.enabled),
  )
}
