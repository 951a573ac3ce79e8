import type { ClientIdentity, ClientsService } from '../clients-service.js'
import type { FailureLimiter } from './failure-limiter.js'

export type CredentialCheck =
  { outcome: 'ok'; client: ClientIdentity } | { outcome: 'limited'; retryAfterSeconds: number } | { outcome: 'invalid' }

/**
 * Client credentials, checked the same way wherever they are accepted (the token endpoint and
 * Basic auth on the webhook interface): attempts count in ONE limiter, so a second door does not
 * double an attacker's guesses. A client secret is 256 random bits: nobody guesses it, so the
 * secret is checked first and a right one costs one read (is a key locked?) and no write. A wrong
 * one is counted atomically (admit), and only the attempts the count admits are answered 401: a
 * burst of N concurrent wrong secrets gets at most the limit told, the rest 429. Counting right
 * answers too (as sign-in does for passwords) refused a client's own concurrency past the limit:
 * 6 tokens/s at 50 connections in `npm run bench`. Credentials that cannot be read count against
 * the address.
 */
export async function checkClientCredentials(
  deps: { clients: ClientsService; limiter: FailureLimiter },
  creds: { clientId: string; clientSecret: string } | undefined,
  address: string,
): Promise<CredentialCheck> {
  const attempt = { identity: creds?.clientId, address }
  const client = creds ? await deps.clients.authenticate(creds.clientId, creds.clientSecret) : undefined
  if (client) {
    const gate = await deps.limiter.gate(attempt)
    if (!gate.open) return { outcome: 'limited', retryAfterSeconds: gate.retryAfterSeconds }
    await deps.limiter.passed(attempt, gate.forget)
    return { outcome: 'ok', client }
  }
  const admission = await deps.limiter.admit(attempt)
  if (!admission.admitted) return { outcome: 'limited', retryAfterSeconds: admission.retryAfterSeconds }
  await deps.limiter.failed(admission.ticket)
  return { outcome: 'invalid' }
}
