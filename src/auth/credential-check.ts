import type { ClientIdentity, ClientsService } from './clients.service.js'
import type { FailureLimiter } from './failure-limiter.js'

export type CredentialCheck =
  | { outcome: 'ok'; client: ClientIdentity }
  | { outcome: 'limited'; retryAfterSeconds: number }
  | { outcome: 'invalid' }

/**
 * Client credentials, checked the same way wherever they are accepted (the token endpoint and
 * Basic auth on the webhook interface): failures count per client id and per address in ONE
 * limiter, so a second door does not double an attacker's guesses.
 */
export async function checkClientCredentials(
  deps: { clients: ClientsService; limiter: FailureLimiter },
  creds: { clientId: string; clientSecret: string } | undefined,
  address: string,
): Promise<CredentialCheck> {
  const ipKey = `ip:${address}`
  const idKey = creds ? `client:${creds.clientId}` : undefined
  const wait = Math.max(deps.limiter.retryAfter(ipKey), idKey ? deps.limiter.retryAfter(idKey) : 0)
  if (wait > 0) return { outcome: 'limited', retryAfterSeconds: wait }
  const client = creds ? await deps.clients.authenticate(creds.clientId, creds.clientSecret) : undefined
  if (!client) {
    deps.limiter.recordFailure(ipKey)
    if (idKey) deps.limiter.recordFailure(idKey)
    return { outcome: 'invalid' }
  }
  deps.limiter.reset(idKey!)
  return { outcome: 'ok', client }
}
