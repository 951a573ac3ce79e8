import { PassThrough, pipeline, Readable } from 'node:stream'

export interface ExportLog {
  info(obj: object, msg: string): void
  error(obj: object, msg: string): void
}

const NEEDS_QUOTES = /[",\r\n]/

/** One RFC 4180 record: a field holding a comma, a double quote or a line break is quoted, its quotes doubled; CRLF ends it. */
export function csvRecord(cells: readonly string[]): string {
  let line = ''
  for (let i = 0; i < cells.length; i++) {
    const c = cells[i]!
    if (i > 0) line += ','
    line += NEEDS_QUOTES.test(c) ? `"${c.replace(/"/g, '""')}"` : c
  }
  return `${line}\r\n`
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
      let chunk = ''
      for (const row of batch) chunk += csvRecord(row)
      rows += batch.length
      yield chunk
    }
  }
  const out = new PassThrough()
  pipeline(Readable.from(encode()), out, (err) => {
    if (!err) return
    if ((err as NodeJS.ErrnoException).code === 'ERR_STREAM_PREMATURE_CLOSE') log.info({ rows }, 'CSV export stopped: the client went away')
    else log.error({ err, rows }, 'CSV export failed mid-stream; response cut')
  })
  return out
}
