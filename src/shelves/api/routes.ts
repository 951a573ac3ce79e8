import { Type } from '@sinclair/typebox'
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { actorOf } from '../../packages/index.js'
import { errorResponses } from '../../platform/http/schemas.js'
import type { ShelvesService } from '../service.js'
import type { ShelfAuditsService } from '../audits.js'
import {
  AuditListQuerySchema,
  AuditListSchema,
  AuditParams,
  AuditSchema,
  AuditScansSchema,
  CodeParams,
  FileResultsSchema,
  LabelQuerySchema,
  SaveShelfSchema,
  ScansSchema,
  ShelfListSchema,
  ShelfSchema,
  SiteParams,
} from './schemas.js'

const tags = ['shelves']
const security = [{ bearerAuth: [] }]

/** Issue 30.1: shelves are things — a label code per storage site, filing by scan, audits. */
export const shelvesRoutes: FastifyPluginAsyncTypebox<{
  shelves: ShelvesService
  shelfAudits: ShelfAuditsService
}> = async (app, { shelves, shelfAudits }) => {
  app.get(
    '/api/v1/shelves',
    {
      schema: {
        tags,
        security,
        summary: 'List shelves',
        description: 'The shelves whose site is still in the tree, by code (at most 1,000).',
        response: { 200: ShelfListSchema, ...errorResponses() },
      },
    },
    async (request) => ({ shelves: await shelves.listShelves(request.tenant.subId) }),
  )

  app.get(
    '/api/v1/shelves/labels',
    {
      schema: {
        tags,
        security,
        summary: 'Print shelf labels',
        description:
          'The labels of the shelves named (every shelf when none is), one per page (PDF) or per format (ZPL II, UTF-8, 203 dpi): the shelf’s name, where it is, and its code as a Code 128 with the code in text under it. A site named that is no shelf is a 400 naming it.',
        querystring: LabelQuerySchema,
        response: {
          200: {
            description: 'A PDF (application/pdf) or ZPL (text/plain).',
            content: {
              'application/pdf': { schema: Type.String({ format: 'binary' }) },
              'text/plain': { schema: Type.String() },
            },
          },
          ...errorResponses(400),
        },
      },
    },
    async (request, reply) => {
      const { inboundSiteId, format = 'pdf', size = '4x6' } = request.query
      const body = await shelves.labels(request.tenant.subId, inboundSiteId, format, size)
      return (
        reply
          .type(format === 'pdf' ? 'application/pdf' : 'text/plain; charset=utf-8')
          .header('content-disposition', `inline; filename="shelf-labels-${size}.${format}"`)
          // The schema above documents both bodies; the serializer is not used for either.
          .send(body as string)
      )
    },
  )

  app.get(
    '/api/v1/shelves/codes/:code',
    {
      schema: {
        tags,
        security,
        summary: 'Find the shelf a label code names',
        description: 'What the desk asks when a scan starts with `SHELF-`. Case is ignored.',
        params: CodeParams,
        response: { 200: ShelfSchema, ...errorResponses(404) },
      },
    },
    async (request) => shelves.shelfByCode(request.tenant.subId, request.params.code),
  )

  app.get(
    '/api/v1/shelves/audits',
    {
      schema: {
        tags,
        security,
        summary: 'List past shelf audits',
        description:
          'Newest first, paged with `skip` and `limit`; each with its counts. `inboundSiteId`: only the audits of that shelf, or of the shelves at or under that site (a 400 naming it when no such site).',
        querystring: AuditListQuerySchema,
        response: { 200: AuditListSchema, ...errorResponses(400) },
      },
    },
    async (request) => shelfAudits.listAudits(request.tenant.subId, request.query),
  )

  app.get(
    '/api/v1/shelves/audits/:auditId',
    {
      schema: {
        tags,
        security,
        summary: 'Get a past shelf audit',
        description:
          'As it was answered (which parcels were found, missing, misplaced; the unknown scans), each parcel as its record reads now (`recordedAt`: where it is recorded today).',
        params: AuditParams,
        response: { 200: AuditSchema, ...errorResponses(404) },
      },
    },
    async (request) => shelfAudits.getAudit(request.tenant.subId, request.params.auditId),
  )

  app.get(
    '/api/v1/shelves/:inboundSiteId',
    {
      schema: {
        tags,
        security,
        summary: 'Get a shelf',
        params: SiteParams,
        response: { 200: ShelfSchema, ...errorResponses(404) },
      },
    },
    async (request) => shelves.getShelf(request.tenant.subId, request.params.inboundSiteId),
  )

  app.put(
    '/api/v1/shelves/:inboundSiteId',
    {
      schema: {
        tags,
        security,
        summary: 'Make a site a shelf',
        description:
          'Gives a storage site of the tree (any site below a top-tier site) a label code, or changes the `kind` of the shelf it is (default `shelf`). 201 when made, 200 when it was one: its code never changes, so printed labels stay good.',
        params: SiteParams,
        body: SaveShelfSchema,
        response: { 200: ShelfSchema, 201: ShelfSchema, ...errorResponses(400, 404) },
      },
    },
    async (request, reply) => {
      const { shelf, created } = await shelves.saveShelf(
        request.tenant.subId,
        request.params.inboundSiteId,
        request.body.kind ?? 'shelf',
      )
      return reply.code(created ? 201 : 200).send(shelf)
    },
  )

  app.delete(
    '/api/v1/shelves/:inboundSiteId',
    {
      schema: {
        tags,
        security,
        summary: 'Stop using a site as a shelf',
        description: 'Its code no longer scans; the site and its packages stay.',
        params: SiteParams,
        response: { 200: Type.Object({}), ...errorResponses(404) },
      },
    },
    async (request) => {
      await shelves.deleteShelf(request.tenant.subId, request.params.inboundSiteId)
      return {}
    },
  )

  app.post(
    '/api/v1/shelves/:inboundSiteId/filings',
    {
      schema: {
        tags,
        security,
        summary: 'File scanned parcels on a shelf',
        description:
          'Each scan (a tracking number or a package id) is moved to the shelf’s site with its name as `packageLocation`, a history entry as any move (a parcel out for delivery becomes RECEIVED). Each scan is answered on its own, in order: `filed`, `already_there`, `not_found`, or `finished` (handed over, returned or archived: not moved). A clerk limited to a site files only within it (400 as a move).',
        params: SiteParams,
        body: ScansSchema,
        response: { 200: FileResultsSchema, ...errorResponses(400, 404) },
      },
    },
    async (request) => ({
      results: await shelves.fileParcels(actorOf(request), request.params.inboundSiteId, request.body.scans),
    }),
  )

  app.post(
    '/api/v1/shelves/:inboundSiteId/audits',
    {
      schema: {
        tags,
        security,
        summary: 'Audit a shelf',
        description:
          'Compares what the records say waits at the shelf with the parcels scanned there: `found`, `missing` (recorded here, not scanned), `misplaced` (scanned here, recorded elsewhere) and `unknown` scans. The audit is kept. Nothing is moved: file the misplaced ones here to correct them.',
        params: SiteParams,
        body: AuditScansSchema,
        response: { 201: AuditSchema, ...errorResponses(400, 404) },
      },
    },
    async (request, reply) =>
      reply
        .code(201)
        .send(await shelves.auditShelf(actorOf(request), request.params.inboundSiteId, request.body.scans)),
  )
}
