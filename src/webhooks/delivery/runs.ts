import type { Clock } from '../../platform/kit/clock.js'
import type { ClaimedDelivery } from '../store/deliveries-claim.js'
import { attemptDelivery, type AttemptDeps, type AttemptResult } from './deliver.js'

// A claimed delivery into an attempt: every delivery on its own, none waits for another.

export interface WorkerLog {
  info(obj: object, msg: string): void
  error(obj: object, msg: string): void
}

/** A claimed delivery and what its attempt did. */
export interface Completion {
  claimed: ClaimedDelivery
  result: AttemptResult
}

export function createSender(deps: AttemptDeps & { clock: Clock; log: WorkerLog }) {
  const { clock, log } = deps

  /** One attempt; never throws: what is not the receiver's doing is recorded as an internal failure and retried. */
  async function attempt(d: ClaimedDelivery): Promise<AttemptResult> {
    try {
      return await attemptDelivery(d, deps)
    } catch (err) {
      // Not the receiver's doing (a secret that no longer opens, a bug): recorded, retried, logged.
      log.error({ err, deliveryId: d.delivery_id }, 'webhook attempt failed unexpectedly')
      return {
        startedAt: clock.now(),
        latencyMs: 0,
        statusCode: null,
        succeeded: false,
        errorClass: 'internal',
        error: 'internal error',
        responseBody: null,
        gone: false,
      }
    }
  }

  return { attempt }
}
