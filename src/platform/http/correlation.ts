import { randomUUID } from 'node:crypto'
import type { IncomingMessage } from 'node:http'

// Accept a caller's id only when it is short and plain, so it cannot inject into logs or headers.
const SAFE_ID = /^[A-Za-z0-9._:-]{1,128}$/

/** CONTRACT §1: the correlation id is the caller's X-Correlation-ID, or one we make. */
export function correlationId(req: IncomingMessage): string {
  const given = req.headers['x-correlation-id']
  return typeof given === 'string' && SAFE_ID.test(given) ? given : randomUUID()
}
