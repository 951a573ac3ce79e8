import { AppError } from '../kit/errors.js'

/**
 * Bounds how many of one kind of expensive operation (search, export, image decode, bulk write) a
 * subscription runs at once, so one tenant cannot occupy the database pool or the worker threads
 * that every tenant shares. Beyond the bound the request is refused at once with a 429 and a
 * `Retry-After`, never queued: a queue would only hold the sockets of the tenant that floods.
 *
 * In-process on purpose: what it protects (this process's pool connections and threads) is per
 * process too. Cross-process fairness is the rate limiter's job.
 */
export class TenantGate {
  readonly #running = new Map<string, number>()

  constructor(
    /** What is bounded, named in the refusal (`image decodes`, `searches`). */
    readonly what: string,
    readonly maxPerTenant: number,
    readonly retryAfterSeconds = 1,
  ) {
    if (!Number.isInteger(maxPerTenant) || maxPerTenant < 1)
      throw new Error(`TenantGate ${what}: maxPerTenant must be a positive integer`)
  }

  /** Runs `work` holding one of the tenant's slots, or throws TENANT_BUSY (429) when none is free. */
  async run<T>(tenant: string, work: () => Promise<T>): Promise<T> {
    const release = this.acquire(tenant)
    try {
      return await work()
    } finally {
      release()
    }
  }

  /** Takes a slot (or throws TENANT_BUSY); the returned function gives it back, once. */
  acquire(tenant: string): () => void {
    const now = this.#running.get(tenant) ?? 0
    if (now >= this.maxPerTenant) {
      throw new AppError('TENANT_BUSY', {
        description: `Too many concurrent ${this.what} for this subscription (at most ${this.maxPerTenant} at once); retry after ${this.retryAfterSeconds} s.`,
        additionalInfo: `limit: ${this.maxPerTenant} concurrent ${this.what}`,
        headers: { 'retry-after': String(this.retryAfterSeconds) },
      })
    }
    this.#running.set(tenant, now + 1)
    let released = false
    return () => {
      if (released) return
      released = true
      const left = (this.#running.get(tenant) ?? 1) - 1
      if (left <= 0) this.#running.delete(tenant)
      else this.#running.set(tenant, left)
    }
  }

  /** Slots the tenant holds now (tests, metrics). */
  inUse(tenant: string): number {
    return this.#running.get(tenant) ?? 0
  }
}
