import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { actorOf } from '../../packages/index.js'
import { errorResponses } from '../../platform/http/schemas.js'
import type { ExceptionsService } from '../service.js'
import {
  CountExceptionsQuerySchema,
  ExceptionCountsSchema,
  ExceptionListSchema,
  ListExceptionsQuerySchema,
} from './schemas.js'

const tags = ['exceptions']
const security = [{ bearerAuth: [] }]
const ABOUT =
  "Every parcel still waiting that needs something done, each with its kind and next action; a parcel can be under several kinds (a damaged parcel waiting for a week is `damaged` and `unclaimed`). A clerk limited to a site sees that site's. Read from each kind's owner (packages, scan issues, the directory's departures, notifications, shelf audits) on indexes that hold the kind's rows only; scan issues, departures and failed notifications are read up to their 1,000 most recent."

/** Issue 30.3: exceptions in one place. */
export const exceptionsRoutes: FastifyPluginAsyncTypebox<{ exceptions: ExceptionsService }> = async (
  app,
  { exceptions },
) => {
  app.get(
    '/api/v1/exceptions',
    {
      schema: {
        tags,
        security,
        summary: 'List exceptions',
        description: `${ABOUT} Oldest first. A list of several kinds reaches its first 10,000 rows; one kind pages to its end.`,
        querystring: ListExceptionsQuerySchema,
        response: { 200: ExceptionListSchema, ...errorResponses(400) },
      },
    },
    async (request) => exceptions.listExceptions(actorOf(request), request.query),
  )

  app.get(
    '/api/v1/exceptions/counts',
    {
      schema: {
        tags,
        security,
        summary: 'Count exceptions per kind',
        description: `${ABOUT} Every kind asked for is listed, zero included.`,
        querystring: CountExceptionsQuerySchema,
        response: { 200: ExceptionCountsSchema, ...errorResponses(400) },
      },
    },
    async (request) => exceptions.countExceptions(actorOf(request), request.query),
  )
}
