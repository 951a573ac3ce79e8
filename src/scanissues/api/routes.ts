import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { actorOf } from '../../packages/index.js'
import { errorResponses } from '../../platform/http/schemas.js'
import type { ScanIssuesService } from '../service.js'
import {
  ListScanIssuesQuerySchema,
  OpenScanIssueSchema,
  ResolveScanIssueSchema,
  ScanIssueIdParams,
  ScanIssueListSchema,
  ScanIssueSchema,
} from './schemas.js'

const tags = ['scan issues']
const security = [{ bearerAuth: [] }]

const REASONS = [
  '`no_match`: no contact is near the printed name;',
  '`partial_match`: the best candidate is below the auto-assign threshold (RECIPIENT_AUTO_ASSIGN_THRESHOLD);',
  '`several_matches`: candidates are within the margin of each other (RECIPIENT_AUTO_ASSIGN_MARGIN), or only an initial is printed and two contacts share the surname;',
  '`business`: the label names a company and no person.',
].join(' ')

/** The scan-issues queue (issue 27): label photos whose recipient was not chosen, until a clerk chooses. */
export const scanIssuesRoutes: FastifyPluginAsyncTypebox<{ scanIssues: ScanIssuesService }> = async (
  app,
  { scanIssues },
) => {
  app.post(
    '/api/v1/scanissues',
    {
      schema: {
        tags,
        security,
        summary: 'Put a package in the scan-issues queue',
        description: `For a package received from a label photo without a recipient. The directory match is run again on \`read\` (the name line, company and unit as printed): the issue keeps the best three suggestions and the reason, given or the matcher's: ${REASONS} Emits \`ScanIssueOpened\`. One open issue per package (409 already_exists).`,
        body: OpenScanIssueSchema,
        response: { 201: ScanIssueSchema, ...errorResponses(400, 409) },
      },
    },
    async (request, reply) => reply.code(201).send(await scanIssues.openIssue(actorOf(request), request.body)),
  )

  app.get(
    '/api/v1/scanissues',
    {
      schema: {
        tags,
        security,
        summary: 'List scan issues',
        description: 'Open issues oldest first (the queue); `status=settled` newest first.',
        querystring: ListScanIssuesQuerySchema,
        response: { 200: ScanIssueListSchema, ...errorResponses(400) },
      },
    },
    async (request) => scanIssues.listIssues(request.tenant.subId, request.query),
  )

  app.get(
    '/api/v1/scanissues/:scanIssueId',
    {
      schema: {
        tags,
        security,
        summary: 'Get a scan issue',
        params: ScanIssueIdParams,
        response: { 200: ScanIssueSchema, ...errorResponses(400, 404) },
      },
    },
    async (request) => scanIssues.getIssue(request.tenant.subId, request.params.scanIssueId),
  )

  app.post(
    '/api/v1/scanissues/:scanIssueId/resolve',
    {
      schema: {
        tags,
        security,
        summary: 'Settle a scan issue: choose the recipient',
        description:
          "Sets the package's receiver to `contactId` (a package update: one activity, its own events) and settles the issue, emitting `ScanIssueSettled`, in one transaction. Settling an issue already settled with the same `contactId` (a retry) answers the settled issue and changes nothing; with another contact it is 409.",
        params: ScanIssueIdParams,
        body: ResolveScanIssueSchema,
        response: { 200: ScanIssueSchema, ...errorResponses(400, 404, 409) },
      },
    },
    async (request) => scanIssues.resolveIssue(actorOf(request), request.params.scanIssueId, request.body.contactId),
  )
}
