/**
 * Whether `e` is PostgreSQL's unique_violation (23505), optionally of one named index. pg reports
 * the index in `constraint`; PGlite may only name it in the message, so both are read.
 */
export function isUniqueViolation(e: unknown, constraint?: string): boolean {
  const err = e as { code?: unknown; constraint?: unknown; message?: unknown } | null
  if (typeof err !== 'object' || err === null || err.code !== '23505') return false
  if (constraint === undefined) return true
  return err.constraint === constraint || (typeof err.message === 'string' && err.message.includes(`"${constraint}"`))
}

/** Whether `e` is PostgreSQL's foreign_key_violation (23503): a row still referenced, or a reference to none. */
export function isForeignKeyViolation(e: unknown): boolean {
  return typeof e === 'object' && e !== null && (e as { code?: unknown }).code === '23503'
}

/**
 * Whether PostgreSQL answered `e` as the statement's own failure (an error response with a
 * SQLSTATE): the statement, and its commit, did not happen. A lost connection has no such answer,
 * and then whether the statement committed is unknown. Connection exceptions (class 08) count as
 * unknown too.
 */
export function isStatementError(e: unknown): boolean {
  const err = e as { code?: unknown; severity?: unknown } | null
  return (
    typeof err === 'object' &&
    err !== null &&
    typeof err.severity === 'string' &&
    typeof err.code === 'string' &&
    !err.code.startsWith('08')
  )
}
