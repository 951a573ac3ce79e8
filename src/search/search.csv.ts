import { stringify } from 'csv-stringify'
import { pipeline, Readable } from 'node:stream'

export interface ExportLog {
  info(obj: object, msg: string): void
  error(obj: object, msg: string): void
}

/**
 * Rows → RFC 4180 CSV (CRLF, quotes only where needed) as a stream to send. stream.pipeline, not
 * pipe: a failing row source destroys the output with its error (the HTTP layer then cuts the
 * response, which a client sees as truncated, never as a complete file) instead of throwing an
 * uncaught 'error'; and a destroyed output (the client went away) returns the row source's
 * iterator, so its generator stops reading the database.
 */
export function csvStream(rows: AsyncIterable<string[]>, log: ExportLog): Readable {
  let sent = 0
  const counted = async function* () {
    for await (const row of rows) {
      sent++
      yield row
    }
  }
  const out = stringify({ record_delimiter: '\r\n' })
  pipeline(Readable.from(counted()), out, (err) => {
    if (!err) return
    if ((err as NodeJS.ErrnoException).code === 'ERR_STREAM_PREMATURE_CLOSE') log.info({ rows: sent }, 'CSV export stopped: the client went away')
    else log.error({ err, rows: sent }, 'CSV export failed mid-stream; response cut')
  })
  return out
}
