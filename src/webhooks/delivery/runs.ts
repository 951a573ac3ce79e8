import type { Clock } from '../../platform/kit/clock.js'
import type { ClaimedDelivery } from '../store/deliveries-claim.js'
import { attemptDelivery, type AttemptDeps, type AttemptResult } from './deliver.js'

// Claimed deliveries into sends: each run in order, runs side by side.

export interface WorkerLog {
  info(obj: object, msg: string): void
  error(obj: object, msg: string): void
}

/** A claimed delivery and what became of it: an attempt, or given back unsent (its run stopped before it). */
export type Completion =
  { claimed: ClaimedDelivery; result: AttemptResult } | { claimed: ClaimedDelivery; result?: undefined }

export interface Run {
  run: ClaimedDelivery[]
  /** Claimed past a gap in the run: given back unsent. */
  cut: ClaimedDelivery[]
}

/**
 * A claim's deliveries as runs, each in sequence order. A run with a gap (a delivery that changed
 * between the claim's read and its update) ends before it: what follows the gap is given back.
 */
export function runsOf(claimed: ClaimedDelivery[]): Run[] {
  const byRun = new Map<string, ClaimedDelivery[]>()
  for (const d of claimed) byRun.set(d.run_id, [...(byRun.get(d.run_id) ?? []), d])
  return [...byRun.values()].map((ds) => {
    ds.sort((a, b) => a.run_pos - b.run_pos)
    const gap = ds.findIndex((d, i) => d.run_pos !== i)
    return gap < 0 ? { run: ds, cut: [] } : { run: ds.slice(0, gap), cut: ds.slice(gap) }
  })
}

export function createSender(deps: AttemptDeps & { clock: Clock; log: WorkerLog; concurrency: number }) {
  const { clock, log } = deps

  async function attempt(d: ClaimedDelivery): Promise<{ claimed: ClaimedDelivery; result: AttemptResult }> {
    try {
      return { claimed: d, result: await attemptDelivery(d, deps) }
    } catch (err) {
      // Not the receiver's doing (a secret that no longer opens, a bug): recorded, retried, logged.
      log.error({ err, deliveryId: d.delivery_id }, 'webhook attempt failed unexpectedly')
      return {
        claimed: d,
        result: {
          startedAt: clock.now(),
          latencyMs: 0,
          statusCode: null,
          succeeded: false,
          errorClass: 'internal',
          error: 'internal error',
          responseBody: null,
          gone: false,
        },
      }
    }
  }

  /**
   * Sends one run in order, each delivery after the previous one succeeded, calling `done` as each
   * is settled. What is left when one fails (it is retried first), when the lease would no longer
   * cover a send, or when the worker stops, is given back unsent.
   */
  async function sendRun(
    { run, cut }: Run,
    done: (c: Completion) => void,
    stopping: () => boolean = () => false,
  ): Promise<void> {
    let i = 0
    for (; i < run.length; i++) {
      const d = run[i]!
      if (i > 0 && (stopping() || clock.now().getTime() + d.timeout_seconds * 2000 > d.locked_until.getTime())) break
      const c = await attempt(d)
      done(c)
      if (!c.result.succeeded) {
        i++
        break
      }
    }
    for (const d of [...run.slice(i), ...cut]) done({ claimed: d })
  }

  /** Sends the runs of `claimed` with at most `concurrency` in flight. */
  async function attemptAll(claimed: ClaimedDelivery[]): Promise<Completion[]> {
    const runs = runsOf(claimed)
    const out: Completion[] = []
    let next = 0
    const lane = async () => {
      while (next < runs.length) await sendRun(runs[next++]!, (c) => out.push(c))
    }
    await Promise.all(Array.from({ length: Math.min(deps.concurrency, runs.length) }, lane))
    return out
  }

  return { sendRun, attemptAll }
}
