import { Type } from '@sinclair/typebox'
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { errorResponses } from '../../platform/http/schemas.js'
import {
  CreateSiteSchema,
  ListSitesQuerySchema,
  LocationIdsBody,
  SiteIdParams,
  SiteSchema,
  UpdateSiteSchema,
} from './schemas.js'
import type { SitesService } from '../service.js'
import { outcomeOf } from '../../platform/idempotency/hooks.js'

const tags = ['inbound sites']
const security = [{ bearerAuth: [] }]
const Empty = Type.Object({})

/** CONTRACT §3: inbound sites, a hierarchy per subscription (site → building → floor → … → shelf/locker). */
export const sitesRoutes: FastifyPluginAsyncTypebox<{ sites: SitesService }> = async (app, { sites }) => {
  app.post(
    '/api/v1/inboundsites',
    {
      schema: {
        tags,
        security,
        summary: 'Create an inbound site',
        description:
          'Top tier: `{type: "site", name, locationId, primary?, status?}`. Below it: `{type: building|floor|room|mailstop|shelf|locker, name, parent, status?}`; the child takes its parent\'s location. Names are unique among siblings (409). Making a site primary un-marks the previous primary site.',
        body: CreateSiteSchema,
        response: { 200: Type.Object({ inboundSiteId: Type.String() }), ...errorResponses(400, 409) },
      },
    },
    async (request, reply) => sites.createSite(request.tenant.subId, request.body, outcomeOf(request, reply, 200)),
  )

  app.get(
    '/api/v1/inboundsites',
    {
      schema: {
        tags,
        security,
        summary: 'List inbound sites',
        description:
          'Deleted sites are never listed. Default sort is by hierarchy (root first, then depth-first by name).',
        querystring: ListSitesQuerySchema,
        response: {
          200: Type.Object({ inboundSites: Type.Array(SiteSchema), totalCount: Type.Integer() }),
          ...errorResponses(400),
        },
      },
    },
    async (request) => sites.listSites(request.tenant.subId, request.query),
  )

  app.put(
    '/api/v1/inboundsites/:id',
    {
      schema: {
        tags,
        security,
        summary: 'Rename, move, (de)activate or make primary',
        description:
          'A move re-parents the whole subtree in one transaction (ancestorlist, locationHierarchy, topTier and location follow); a move under the site itself or its descendants is refused (400 on `parent`). Top-tier sites cannot be moved.',
        params: SiteIdParams,
        body: UpdateSiteSchema,
        response: { 200: Empty, ...errorResponses(400, 404, 409) },
      },
    },
    async (request) => {
      await sites.updateSite(request.tenant.subId, request.params.id, request.body)
      return {}
    },
  )

  app.delete(
    '/api/v1/inboundsites/:id',
    {
      schema: {
        tags,
        security,
        summary: 'Delete an inbound site',
        description:
          'Refused (409) while the site has active child sites. The site and its inactive descendants are deleted softly: packages and their history keep showing them.',
        params: SiteIdParams,
        response: { 200: Empty, ...errorResponses(404, 409) },
      },
    },
    async (request) => {
      await sites.deleteSite(request.tenant.subId, request.params.id)
      return {}
    },
  )

  app.post(
    '/api/v1/location/inboundsites',
    {
      config: { tenantGate: 'bulkOperations' },
      schema: {
        tags,
        security,
        summary: 'Inbound sites of locations',
        description: 'Body: location ids. Unknown ids are a 400 naming the element.',
        body: LocationIdsBody,
        response: {
          200: Type.Object({
            locations: Type.Array(Type.Object({ locationId: Type.String(), inboundSites: Type.Array(SiteSchema) })),
          }),
          ...errorResponses(400),
        },
      },
    },
    async (request) => sites.sitesOfLocations(request.tenant.subId, request.body),
  )
}
