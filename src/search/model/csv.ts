import { stringify } from 'csv-stringify/sync'
import { PassThrough, pipeline, Readable } from 'node:stream'

export interface ExportLog {
  info(obj: object, msg: string): void
  error(obj: object, msg: string): void
}

/**
 * RFC 4180 records: a field holding a comma, a double quote or a line break is quoted, its quotes
 * doubled; CRLF ends each record. csv-stringify's synchronous form, one call per batch: the batch
 * is already in memory, and one call costs far less than a transform stream's per-row machinery.
 */
export function csvRecords(rows: readonly (readonly string[])[]): string {
  // A lone LF or CR must be quoted too (the library only looks for the CRLF delimiter itself).
  return stringify(rows as string[][], { record_delimiter: 'windows', quoted_match: /[\r\n]/ })
}

/**
 * Batches of rows → CSV as a stream to send, one chunk per batch. stream.pipeline, not pipe: a
 * failing row source destroys the output with its error (the HTTP layer then cuts the response,
 * which a client sees as truncated, never as a complete file) instead of throwing an uncaught
 * 'error'; and a destroyed output (the client went away) returns the source's iterator, so its
 * generators stop reading the database.
 */
export function csvStream(batches: AsyncIterable<readonly string[][]>, log: ExportLog): Readable {
  let rows = 0
  const encode = async function* () {
    for await (const batch of batches) {
      rows += batch.length
      yield csvRecords(batch)
    }
  }
  const out = new PassThrough()
  // One encoded batch waiting at most (object mode's default is sixteen): what waits for the
  // socket outlives young-generation collections and fills the old generation.
  pipeline(Readable.from(encode(), { highWaterMark: 1 }), out, (err) => {
    if (!err) return
    if (err.code === 'ERR_STREAM_PREMATURE_CLOSE') log.info({ rows }, 'CSV export stopped: the client went away')
    else log.error({ err, rows }, 'CSV export failed mid-stream; response cut')
  })
  return out
}
