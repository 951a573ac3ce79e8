/** SQLSTATEs PostgreSQL answers when it chose this statement to lose a race it may win when run again. */
const RETRYABLE = new Set(['40P01', '40001']) // deadlock_detected, serialization_failure

const isRetryable = (e: unknown): boolean =>
  typeof e === 'object' && e !== null && RETRYABLE.has(String((e as { code?: unknown }).code))

/**
 * Runs `work` (one statement, or one transaction, in autocommit) again when PostgreSQL aborted it
 * as a deadlock's victim or for a serialization failure: the other side has gone ahead, so a second
 * run normally passes. Bounded (`attempts`, 3), with a short random pause between tries so two
 * victims do not meet again at once; anything else, or the last failure, is thrown as it came.
 */
export async function retryOnConflict<T>(work: () => Promise<T>, attempts = 3): Promise<T> {
  for (let i = 1; ; i++) {
    try {
      return await work()
    } catch (e) {
      if (i >= attempts || !isRetryable(e)) throw e
      await new Promise((r) => setTimeout(r, Math.random() * 10 * i))
    }
  }
}
