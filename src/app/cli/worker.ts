import type { Config } from '../config.js'
import { startBackground } from '../background.js'
import { openRuntime } from '../runtime.js'

/**
 * `mailroom worker`: the webhook worker alone (fan-out, deliveries, locker and retention jobs), no
 * HTTP. Run any number of them beside `serve` (with MAILROOM_WEBHOOK_WORKER=false there, or not):
 * they share the work through row locks. SIGTERM/SIGINT stop claiming, let in-flight sends finish
 * and record them, then exit 0.
 */
export async function workerCommand(config: Readonly<Config>): Promise<void> {
  const ctx = await openRuntime(config)
  // JSON lines on stdout, redacted as the request log is (shared/process-log.ts).
  const log = (level: 'info' | 'warn' | 'error', msg: string, extra: Record<string, unknown> = {}) =>
    ctx.log[level](extra, msg)
  const stopBackground = startBackground(ctx, {
    workers: true,
    signingKeys: false,
    log: (level, msg, extra) => log(level, msg, extra),
  })
  log('info', 'webhook worker is up', { engine: ctx.database.engine })

  let stopping = false
  const shutdown = async (signal: string) => {
    if (stopping) return
    stopping = true
    log('info', 'stopping: no new claims, finishing in-flight sends', { signal })
    const force = setTimeout(() => {
      log(
        'error',
        'in-flight sends did not finish in time; exiting (their leases expire and another worker retries them)',
      )
      process.exit(1)
    }, config.shutdownGraceSeconds * 1000)
    force.unref()
    try {
      await stopBackground()
      await ctx.database.close()
      process.exit(0)
    } catch (err) {
      log('error', 'shutdown failed', { err: err instanceof Error ? err.message : String(err) })
      process.exit(1)
    }
  }
  process.once('SIGTERM', () => void shutdown('SIGTERM'))
  process.once('SIGINT', () => void shutdown('SIGINT'))
}
