import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import Provider from 'oidc-provider'

/** What the provider says of one person: the login typed on its form (any password) picks them. */
export interface TestAccount {
  email?: string
  email_verified?: boolean
  name?: string
}

export interface TestProvider {
  /** http://127.0.0.1:PORT: its issuer, as the subscription's settings name it. */
  issuer: string
  clientId: string
  clientSecret: string
  /** Accounts by login: change them mid-test (a person's email becomes unverified…). */
  accounts: Map<string, TestAccount>
  close(): Promise<void>
}

/**
 * A real OpenID Connect provider (node-oidc-provider) on a local port, with one confidential client
 * whose only redirect URI is `redirectUri`, and its development login form (any login, any
 * password; the login picks the account). Consent is granted at once, as a company's provider does
 * for its own applications, so a sign-in is: the form, then back to mailroom.
 */
export async function startTestProvider(redirectUri: string): Promise<TestProvider> {
  const server: Server = createServer()
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const issuer = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
  const clientId = 'mailroom-console'
  const clientSecret = 'a-test-client-secret-0123456789'
  const accounts = new Map<string, TestAccount>()
  const provider = new Provider(issuer, {
    clients: [
      {
        client_id: clientId,
        client_secret: clientSecret,
        redirect_uris: [redirectUri],
        grant_types: ['authorization_code'],
        response_types: ['code'],
        token_endpoint_auth_method: 'client_secret_basic',
      },
    ],
    claims: { openid: ['sub'], email: ['email', 'email_verified'], profile: ['name'] },
    // The id_token carries the claims itself (mailroom reads them there, not from userinfo).
    conformIdTokenClaims: false,
    cookies: { keys: ['test-provider-cookie-key-0123456789'] },
    features: { devInteractions: { enabled: true } },
    pkce: { required: () => true },
    // Set, so the provider does not remind the test of its defaults on every sign-in.
    ttl: { Interaction: 600, Session: 3600, Grant: 3600, AccessToken: 600, IdToken: 600 },
    async findAccount(_ctx, id) {
      return {
        accountId: id,
        async claims() {
          return { sub: id, ...(accounts.get(id) ?? {}) }
        },
      }
    },
    // Consent granted at once (node-oidc-provider's recipe for first-party clients).
    async loadExistingGrant(ctx) {
      const grantId =
        (ctx.oidc.result?.consent as { grantId?: string } | undefined)?.grantId ??
        ctx.oidc.session!.grantIdFor(ctx.oidc.client!.clientId)
      if (grantId) return ctx.oidc.provider.Grant.find(grantId)
      const grant = new ctx.oidc.provider.Grant({
        clientId: ctx.oidc.client!.clientId,
        accountId: ctx.oidc.session!.accountId,
      })
      grant.addOIDCScope('openid email profile')
      await grant.save()
      return grant
    },
  })
  const handle = provider.callback()
  server.on('request', (req, res) => void handle(req, res))
  return {
    issuer,
    clientId,
    clientSecret,
    accounts,
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.closeAllConnections()
        server.close((e) => (e ? reject(e) : resolve()))
      }),
  }
}
