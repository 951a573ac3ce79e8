import { randomBytes } from 'node:crypto'
import { Webhook } from 'standardwebhooks'

/**
 * Standard Webhooks signing (https://www.standardwebhooks.com), through the spec's own library:
 * the signed content is `<webhook-id>.<webhook-timestamp>.<body>`, HMAC-SHA256 under the secret,
 * sent as `v1,<base64>`. Several signatures are space-separated, which is how a receiver keeps
 * verifying across a secret rotation.
 */
export const SECRET_PREFIX = 'whsec_'

/** `whsec_` + base64 of 32 random bytes (the spec asks for 24 to 64). */
export function newSigningSecret(): string {
  return `${SECRET_PREFIX}${randomBytes(32).toString('base64')}`
}

/** The `webhook-signature` value: one `v1,` signature per secret still signing. */
export function signatureHeader(secrets: readonly string[], msgId: string, timestamp: Date, body: string): string {
  return secrets.map((s) => new Webhook(s).sign(msgId, timestamp, body)).join(' ')
}

/** The three Standard Webhooks headers of one attempt. */
export function standardHeaders(
  secrets: readonly string[],
  msgId: string,
  timestamp: Date,
  body: string,
): Record<string, string> {
  return {
    'webhook-id': msgId,
    'webhook-timestamp': String(Math.floor(timestamp.getTime() / 1000)),
    'webhook-signature': signatureHeader(secrets, msgId, timestamp, body),
  }
}
