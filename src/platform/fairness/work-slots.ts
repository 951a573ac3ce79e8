import { AppError } from '../kit/errors.js'

/**
 * A process-wide bound on heavy work, shared by every tenant: at most `slots` at once, the rest
 * wait in arrival order. TenantGate bounds each subscription; this bounds their sum, so the heavy
 * statements of all tenants together keep to the database's cores and leave the others for the
 * light requests (a GET's one-row read). The queue stays short by construction: each subscription
 * can have at most its TenantGate bounds waiting. A wait longer than `maxWaitMs` (0: unbounded) is
 * answered 503 with Retry-After, never a hung socket.
 */
export class WorkSlots {
  #busy = 0
  readonly #waiting: Array<{ grant: () => void }> = []

  constructor(
    readonly slots: number,
    readonly maxWaitMs: number,
  ) {
    if (!Number.isInteger(slots) || slots < 1) throw new Error('WorkSlots: slots must be a positive integer')
  }

  /**
   * Waits for a slot (in arrival order); the returned function gives it back, once. `bounded`
   * false: wait however long it takes (an export between two batches, whose response is already
   * under way: a late batch beats a cut-off file).
   */
  async acquire(bounded = true): Promise<() => void> {
    if (this.#busy < this.slots) {
      this.#busy++
      return this.#releaser()
    }
    return new Promise((resolve, reject) => {
      const entry = { grant: () => resolve(this.#releaser()) }
      this.#waiting.push(entry)
      // 0: no bound on the wait (DB_STATEMENT_TIMEOUT_MS=0 means no timeout).
      if (this.maxWaitMs <= 0 || !bounded) return
      const timer = setTimeout(() => {
        const at = this.#waiting.indexOf(entry)
        if (at < 0) return
        this.#waiting.splice(at, 1)
        reject(
          new AppError('SERVICE_BUSY', {
            description: `The service is busy with heavy requests; retry in a few seconds.`,
            additionalInfo: `waited ${this.maxWaitMs} ms for one of ${this.slots} slots`,
            headers: { 'retry-after': '2' },
          }),
        )
      }, this.maxWaitMs)
      timer.unref?.()
      entry.grant = () => {
        clearTimeout(timer)
        resolve(this.#releaser())
      }
    })
  }

  /** Slots in use and requests waiting (tests, metrics). */
  get state(): { busy: number; waiting: number } {
    return { busy: this.#busy, waiting: this.#waiting.length }
  }

  #releaser(): () => void {
    let done = false
    return () => {
      if (done) return
      done = true
      const next = this.#waiting.shift()
      // The slot passes straight to the next in line; busy stays the same.
      if (next) next.grant()
      else this.#busy--
    }
  }
}
