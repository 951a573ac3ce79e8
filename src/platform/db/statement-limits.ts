/**
 * PostgreSQL's wire protocol counts a statement's parameters in 16 bits (the Bind message), so a
 * statement holds at most 65,535; PGlite fails past it too. A multi-row insert with a parameter per
 * value overflows at 65,535 / columns rows: a batch that grows with one subscription's input
 * would then fail for every subscription in it (issue 26).
 */
export const MAX_BIND_PARAMETERS = 65_535

/** Rows per statement: under the limit with room for a few parameters beside the rows. */
export function rowsPerStatement(columns: number, maxRows = 1_000): number {
  return Math.max(1, Math.min(maxRows, Math.floor((MAX_BIND_PARAMETERS - 64) / Math.max(1, columns))))
}

/**
 * Writes `rows` a statement at a time, each under the parameter limit. Run inside the caller's
 * transaction, the chunks commit together or not at all.
 */
export async function inStatementChunks<T extends object>(
  rows: readonly T[],
  write: (chunk: T[]) => Promise<unknown>,
): Promise<void> {
  if (rows.length === 0) return
  const size = rowsPerStatement(Object.keys(rows[0]!).length)
  for (let i = 0; i < rows.length; i += size) await write(rows.slice(i, i + size))
}
