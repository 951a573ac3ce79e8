import { buildApp } from '../app.js'
import type { Config } from '../config.js'
import type { AppContext } from '../context.js'
import { startBackground } from '../background.js'
import { openRuntime } from '../runtime.js'
import { announceFirstRun } from './first-run.js'
import { ensurePortFree, listenOrExplain } from './port.js'
import { startControlSocket } from '../restore/control.js'
import { listHeld } from '../restore/held-work.js'

/**
 * `mailroom serve`: the whole service in one process, closed gracefully on SIGTERM/SIGINT. The
 * handlers are installed before any work: a signal during start-up (the first one creates the
 * embedded database, which takes seconds) lets the current step finish, then closes what is open
 * and exits, instead of dying half-way through writing files. A second signal exits at once.
 */
export async function serve(config: Readonly<Config>): Promise<void> {
  const started = Date.now()
  let shuttingDown = false
  let stopService: ((signal: string) => Promise<void>) | undefined
  const onSignal = (signal: string) => {
    if (shuttingDown) {
      if (!stopService) process.exit(128 + (signal === 'SIGINT' ? 2 : 15))
      return
    }
    shuttingDown = true
    if (stopService) void stopService(signal)
    else
      process.stderr.write(
        `mailroom: ${signal} while starting; stopping once the current step is done (again to exit at once)\n`,
      )
  }
  process.on('SIGTERM', () => onSignal('SIGTERM'))
  process.on('SIGINT', () => onSignal('SIGINT'))

  // Before the data directory or the database is touched: a busy port is a one-line error (exit 78).
  await ensurePortFree(config.host, config.port)
  const ctx = await openRuntime(config, { statementTimeout: true })
  if (shuttingDown) return exitDuringStartup(ctx)
  const app = await buildApp(ctx, { isShuttingDown: () => shuttingDown })
  // Before listening: a request is never answered from a cache that misses other processes' changes.
  const stopInvalidations = await ctx.invalidations.listen((msg, extra) => app.log.warn(extra, msg))
  if (config.bootstrapClient) {
    const { created } = await ctx.clients.ensureClient(config.bootstrapClient)
    app.log.info({ clientId: config.bootstrapClient.clientId, created }, 'bootstrap client ensured')
  }
  if (shuttingDown) {
    await app.close()
    await stopInvalidations()
    return exitDuringStartup(ctx)
  }
  try {
    await listenOrExplain(config.host, config.port, () => app.listen({ port: config.port, host: config.host }))
  } catch (e) {
    await app.close()
    await stopInvalidations()
    await ctx.database.close()
    throw e
  }
  // Webhook and notification workers run where MAILROOM_WEBHOOK_WORKER says (and in `mailroom worker`).
  const stopBackground = startBackground(ctx, {
    workers: config.webhooks.workerInServe,
    signingKeys: true,
    log: (level, msg, extra) => app.log[level](extra, msg),
  })

  // The embedded database lives in this process: `mailroom backup` and `mailroom held` ask it here.
  const stopControl =
    config.database.kind === 'pglite'
      ? await startControlSocket(
          {
            dbDir: config.database.dir,
            database: ctx.database,
            clock: ctx.clock,
            nudge: () => {
              ctx.notifications.nudge()
              ctx.webhooks.notify()
            },
          },
          (err) => app.log.error({ err }, 'control socket failed'),
        )
      : undefined
  if (config.database.kind === 'pglite' && !stopControl)
    app.log.warn(
      { dir: config.database.dir },
      'no control socket beside the data directory (its path is too long, or the file system refuses sockets): `mailroom backup` and `mailroom held` need the service stopped',
    )

  stopService = async (signal: string) => {
    app.log.info({ signal }, 'shutting down: no new connections, finishing in-flight requests')
    const force = setTimeout(() => {
      app.log.error('in-flight requests did not finish in time; exiting')
      process.exit(1)
    }, config.shutdownGraceSeconds * 1000)
    force.unref()
    try {
      await app.close()
      await stopControl?.()
      await stopBackground()
      await stopInvalidations()
      await ctx.database.close()
      process.exit(0)
    } catch (err) {
      app.log.error({ err }, 'shutdown failed')
      process.exit(1)
    }
  }
  // A signal that came while listening started: honour it now.
  if (shuttingDown) return stopService('SIGTERM')
  app.log.info({ engine: ctx.database.engine, ms: Date.now() - started }, 'mailroom is up')
  const { held } = await listHeld(ctx.db)
  if (held.emails.count + held.webhooks.count > 0)
    app.log.warn(
      { held },
      'a restore holds emails and webhooks that were pending in its backup: `mailroom held`, then resend or drop them (docs/backup.md)',
    )
  await announceFirstRun(ctx, app.server.address())
}

async function exitDuringStartup(ctx: AppContext): Promise<void> {
  await ctx.database.close()
  process.exit(0)
}
