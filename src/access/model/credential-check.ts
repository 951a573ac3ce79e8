import type { ClientIdentity, ClientsService } from '../clients-service.js'
import type { FailureLimiter } from './failure-limiter.js'

export type CredentialCheck =
  { outcome: 'ok'; client: ClientIdentity } | { outcome: 'limited'; retryAfterSeconds: number } | { outcome: 'invalid' }

/**
 * Client credentials, checked the same way wherever they are accepted (the token endpoint and
 * Basic auth on the webhook interface): attempts count in ONE limiter, so a second door does not
 * double an attacker's guesses. The attempt is counted before the secret is checked (a burst of
 * concurrent guesses gets at most the limit checked) and given back when it was right.
 * Credentials that cannot be read count against the address.
 */
export async function checkClientCredentials(
  deps: { clients: ClientsService; limiter: FailureLimiter },
  creds: { clientId: string; clientSecret: string } | undefined,
  address: string,
): Promise<CredentialCheck> {
  const admission = await deps.limiter.admit({ identity: creds?.clientId, address })
  if (!admission.admitted) return { outcome: 'limited', retryAfterSeconds: admission.retryAfterSeconds }
  // A check that throws keeps its count: an error must never be a way around the limit.
  const client = creds ? await deps.clients.authenticate(creds.clientId, creds.clientSecret) : undefined
  if (!client) {
    await deps.limiter.failed(admission.ticket)
    return { outcome: 'invalid' }
  }
  await deps.limiter.succeeded(admission.ticket)
  return { outcome: 'ok', client }
}
