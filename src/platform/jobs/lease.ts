/**
 * The lease of one claimed job: long enough for its work (`workMs`, the job's own bound, e.g. an
 * SMTP or HTTP timeout) twice over and a margin, so a live worker never outlives it and another
 * worker never starts a job whose lease the first may still be using. Past it, a worker that died
 * mid-job has the job claimed again: at least once, never lost.
 */
export const LEASE_MARGIN_MS = 10_000

export function leaseMs(workMs: number): number {
  return workMs * 2 + LEASE_MARGIN_MS
}
