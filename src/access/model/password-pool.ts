import { AppError } from '../../platform/kit/errors.js'

export interface PasswordPoolOptions {
  /** Hashes computed at once (each ~20 ms of one core and 19 MiB). */
  concurrency: number
  /** Hashes waiting for a turn, all callers together; beyond it a new one is refused. */
  maxWaiting: number
  /** Hashes running or waiting for one key (an address, a subscription); beyond it the key's next one is refused. */
  perKey: number
}

/**
 * Password hashing (argon2id, passwords.ts) behind a bounded pool. @node-rs/argon2 hashes on libuv's
 * threads (4 by default, shared with file and DNS work): unbounded, a sign-in flood queued hundreds
 * of 19 MiB hashes there and every tenant waited behind them. Here at most `concurrency` run, at
 * most `maxWaiting` wait, and each key (the caller's address, the user's subscription) holds at most
 * `perKey` of those places: a flood is refused with 429 before it is queued, and takes only its
 * own keys' places, so a quiet tenant's sign-in waits behind at most `perKey` hashes of each other
 * key. Measured against piscina worker threads (the image decoder's pool) on this 2-core machine:
 * no faster per hash, and a thread (and its start-up) more per pool; the native async call already
 * runs off the event loop.
 */
export class PasswordPool {
  readonly #waiting: Array<() => void> = []
  readonly #held = new Map<string, number>()
  #running = 0

  constructor(private readonly opts: PasswordPoolOptions) {}

  /** Runs `hash` in its turn, counted against each of `keys`; 429 (RATE_LIMITED) when a bound is reached. */
  async run<T>(keys: string[], hash: () => Promise<T>): Promise<T> {
    this.refuseIfFull(keys)
    const busy = this.#running >= this.opts.concurrency
    for (const k of keys) this.#held.set(k, (this.#held.get(k) ?? 0) + 1)
    try {
      if (busy) await new Promise<void>((resolve) => this.#waiting.push(resolve))
      else this.#running++
      try {
        return await hash()
      } finally {
        const next = this.#waiting.shift()
        // The place passes to the next in line (still counted as running), else it frees up.
        if (next) next()
        else this.#running--
      }
    } finally {
      for (const k of keys) {
        const n = this.#held.get(k)! - 1
        if (n === 0) this.#held.delete(k)
        else this.#held.set(k, n)
      }
    }
  }

  /** 429 (RATE_LIMITED) when `run` would refuse now: lets a caller refuse before doing anything else. */
  refuseIfFull(keys: string[]): void {
    const full = keys.some((k) => (this.#held.get(k) ?? 0) >= this.opts.perKey)
    if (full || (this.#running >= this.opts.concurrency && this.#waiting.length >= this.opts.maxWaiting))
      throw new AppError('RATE_LIMITED', {
        description: 'Too many password checks in progress; retry in 1 s.',
        headers: { 'retry-after': '1' },
      })
  }

  /** Hashes running and waiting (tests, metrics). */
  get load(): { running: number; waiting: number } {
    return { running: this.#running, waiting: this.#waiting.length }
  }
}
