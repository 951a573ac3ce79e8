import { Type } from '@sinclair/typebox'
import { sql } from 'kysely'
import type { FastifyPluginAsync } from 'fastify'
import type { Db } from '../db/database.js'

/** Liveness says the process answers; readiness says it can reach its database. */
export const healthRoutes: FastifyPluginAsync<{ db: Db; isShuttingDown: () => boolean }> = async (app, opts) => {
  const Status = Type.Object({ status: Type.String() })
  app.get(
    '/healthz',
    { schema: { tags: ['operations'], summary: 'Liveness', response: { 200: Status } } },
    async () => ({ status: 'ok' }),
  )
  app.get(
    '/readyz',
    {
      schema: {
        tags: ['operations'],
        summary: 'Readiness: the database answers',
        response: { 200: Status, 503: Status },
      },
    },
    async (request, reply) => {
      if (opts.isShuttingDown()) return reply.code(503).send({ status: 'shutting down' })
      try {
        await sql`select 1`.execute(opts.db)
        return { status: 'ready' }
      } catch (err) {
        request.log.warn({ err }, 'readiness check failed')
        return reply.code(503).send({ status: 'database unreachable' })
      }
    },
  )
}
