import { pino, type DestinationStream, type Logger } from 'pino'

/**
 * Object paths pino blanks in every log line, whatever logged them: credentials that could reach
 * a log by way of a logged error or object. (PostgreSQL errors repeat the offending values in
 * `detail`.)
 */
export const REDACT_PATHS = [
  'req.headers.authorization',
  'req.headers.cookie',
  'headers.authorization',
  'err.detail',
  'err.where',
  'err.parameters',
  ...[
    'password',
    'clientSecret',
    'client_secret',
    'apiKey',
    'access_token',
    'accessToken',
    'token',
    'secret',
    'authorization',
  ].flatMap((k) => [k, `*.${k}`]),
]

/**
 * The log of what a process does outside a request (the webhook worker, scheduled jobs): JSON lines
 * on stdout like the request log, with the same redaction, so an error a worker logs (a PostgreSQL
 * `detail` repeating a recipient's address, a destination's credentials) is blanked as it would be
 * in a request's log line.
 */
export function processLog(level: string, destination?: DestinationStream): Logger {
  const options = { level, redact: { paths: REDACT_PATHS, censor: '[redacted]' } }
  return destination ? pino(options, destination) : pino(options)
}
