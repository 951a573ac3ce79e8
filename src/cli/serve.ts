import { buildApp } from '../app.js'
import type { Config } from '../config.js'
import { startHousekeeping } from '../housekeeping/housekeeping.js'
import { openRuntime } from '../runtime.js'
import { announceFirstRun } from './first-run.js'

/** `mailroom serve`: the whole service in one process, closed gracefully on SIGTERM/SIGINT. */
export async function serve(config: Readonly<Config>): Promise<void> {
  const started = Date.now()
  const ctx = await openRuntime(config, { statementTimeout: true })
  let shuttingDown = false
  const app = await buildApp(ctx, { isShuttingDown: () => shuttingDown })
  if (config.bootstrapClient) {
    const { created } = await ctx.clients.ensureClient(config.bootstrapClient)
    app.log.info({ clientId: config.bootstrapClient.clientId, created }, 'bootstrap client ensured')
  }
  await app.listen({ port: config.port, host: config.host })
  const stopKeySchedule = ctx.keys.startSchedule()
  const stopWebhooks = config.webhooks.workerInServe ? ctx.webhooks.start() : async () => {}
  const stopHousekeeping = startHousekeeping({ db: ctx.db, clock: ctx.clock, images: ctx.receiving.images, log: (msg, extra) => app.log.info(extra, msg) })
  app.log.info({ engine: ctx.database.engine, ms: Date.now() - started }, 'mailroom is up')
  await announceFirstRun(ctx, app.server.address())

  const shutdown = async (signal: string) => {
    if (shuttingDown) return
    shuttingDown = true
    app.log.info({ signal }, 'shutting down: no new connections, finishing in-flight requests')
    stopKeySchedule()
    const force = setTimeout(() => {
      app.log.error('in-flight requests did not finish in time; exiting')
      process.exit(1)
    }, config.shutdownGraceSeconds * 1000)
    force.unref()
    try {
      await app.close()
      await stopWebhooks()
      await stopHousekeeping()
      await ctx.database.close()
      process.exit(0)
    } catch (err) {
      app.log.error({ err }, 'shutdown failed')
      process.exit(1)
    }
  }
  process.once('SIGTERM', () => void shutdown('SIGTERM'))
  process.once('SIGINT', () => void shutdown('SIGINT'))
}
