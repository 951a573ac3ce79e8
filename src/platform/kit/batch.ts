import DataLoader from 'dataloader'

/** What a batch answers for an item that failed: the error as thrown, or one that says what was thrown. */
export const asError = (e: unknown): Error => (e instanceof Error ? e : new Error(String(e)))

/** Looks up one kind of thing for one subscription: the found ones by key, the missing ones left out. */
export type SubscriptionLookup<V> = (subId: string, keys: string[]) => Promise<Map<string, V>>

/**
 * Gathers the single lookups that concurrent requests make (a Get each, say) into one query per
 * subscription. Every query is a database round trip, and on a loaded server the round trips,
 * not the SQL, cost the most: waking the database's process and ours again is most of a
 * one-row read. So lookups wait for the event loop's check phase (setImmediate: after every
 * request that arrived in the same turn has asked), then go as one `in (…)` per subscription.
 * An idle server answers a lone lookup as before, a few microseconds later.
 *
 * Nothing is cached: each lookup reads the database after it was asked. A lookup that fails
 * fails only the keys of its own subscription.
 */
export function batchPerSubscription<V>(
  lookup: SubscriptionLookup<V>,
  maxBatchSize = 64,
): (subId: string, key: string) => Promise<V | undefined> {
  const load = gather<readonly [string, string], V | undefined>(async (pairs) => {
    const bySub = new Map<string, Set<string>>()
    for (const [subId, key] of pairs) {
      let keys = bySub.get(subId)
      if (!keys) bySub.set(subId, (keys = new Set()))
      keys.add(key)
    }
    const found = new Map<string, Map<string, V> | Error>()
    await Promise.all(
      [...bySub].map(([subId, keys]) =>
        lookup(subId, [...keys]).then(
          (m) => found.set(subId, m),
          (e: unknown) => found.set(subId, asError(e)),
        ),
      ),
    )
    return pairs.map(([subId, key]) => {
      const m = found.get(subId)!
      return m instanceof Error ? m : m.get(key)
    })
  }, maxBatchSize)
  return (subId, key) => load([subId, key])
}

/**
 * The items that concurrent requests hand in during one turn of the event loop, run together: `run`
 * gets them all (at most maxBatchSize at a time) and answers each, in order, with its result or
 * the Error that item alone fails with.
 */
export function gather<K, V>(
  run: (items: readonly K[]) => Promise<ReadonlyArray<V | Error>>,
  maxBatchSize = 64,
): (item: K) => Promise<V> {
  const loader = new DataLoader<K, V>(run, {
    cache: false,
    maxBatchSize,
    batchScheduleFn: (dispatch) => setImmediate(dispatch),
  })
  return (item) => loader.load(item)
}
