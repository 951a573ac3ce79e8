/**
 * Another subscription counts as present for this long after its last request. Long enough to span
 * the gaps of a tenant going about its business (a clerk's next scan), short enough that a tenant
 * alone gets its full speed back within a second of the others going quiet.
 */
const PRESENT_MS = 1000

/**
 * Which subscriptions the process is serving now, as much as the time shares of heavy work need
 * (HeavyShare): whether anyone but a given subscription made a request within the last second.
 * Keeps the two subscriptions seen last, so a request costs O(1) and memory is constant.
 */
export class Presence {
  // Most recent first.
  #last: { subId: string; at: number } | undefined
  #before: { subId: string; at: number } | undefined
  readonly #arrivals: Array<(subId: string) => void> = []

  constructor(
    /** Monotonic milliseconds (injected: the unit tests step it). */
    readonly now: () => number = () => performance.now(),
    /** false (FAIRNESS_OFF=presence, to measure what it earns): others always count as present. */
    private readonly enabled = true,
  ) {}

  /** A request of this subscription arrived (any request: light ones are what the time shares protect). */
  seen(subId: string): void {
    // Before it counts: what ran until now ran without this request's company.
    for (const arriving of this.#arrivals) arriving(subId)
    const at = this.now()
    if (this.#last?.subId === subId) this.#last.at = at
    else {
      this.#before = this.#last
      this.#last = { subId, at }
    }
  }

  /** Whether a subscription other than this one made a request within PRESENT_MS. */
  othersPresent(subId: string): boolean {
    return this.now() < this.othersUntil(subId)
  }

  /** Until when (monotonic ms) another subscription counts as present, from its last request; -Infinity: never seen. */
  othersUntil(subId: string): number {
    if (!this.enabled) return Infinity
    const other = this.#last?.subId === subId ? this.#before : this.#last
    return other === undefined ? -Infinity : other.at + PRESENT_MS
  }

  /** Called with each request's subscription before it is recorded (HeavyShare settles its running turns). */
  onArrival(listener: (subId: string) => void): void {
    this.#arrivals.push(listener)
  }
}
