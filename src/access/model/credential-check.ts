import type { ClientIdentity, ClientsService } from '../clients-service.js'
import type { FailureLimiter } from './failure-limiter.js'

export type CredentialCheck =
  { outcome: 'ok'; client: ClientIdentity } | { outcome: 'limited'; retryAfterSeconds: number } | { outcome: 'invalid' }

/**
 * Client credentials, checked the same way wherever they are accepted (the token endpoint and
 * Basic auth on the webhook interface): failures count in ONE limiter, so a second door does not
 * double an attacker's guesses. Credentials that cannot be read count against the address.
 */
export async function checkClientCredentials(
  deps: { clients: ClientsService; limiter: FailureLimiter },
  creds: { clientId: string; clientSecret: string } | undefined,
  address: string,
): Promise<CredentialCheck> {
  const wait = await deps.limiter.retryAfter(creds?.clientId, address)
  if (wait > 0) return { outcome: 'limited', retryAfterSeconds: wait }
  const client = creds ? await deps.clients.authenticate(creds.clientId, creds.clientSecret) : undefined
  if (!client) {
    await deps.limiter.recordFailure(creds?.clientId, address)
    return { outcome: 'invalid' }
  }
  await deps.limiter.recordSuccess(client.clientId, address)
  return { outcome: 'ok', client }
}
