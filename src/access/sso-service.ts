import * as oidc from 'openid-client'
import type { Logger } from 'pino'
import type { Db } from '../platform/db/database.js'
import { createGuardedFetch } from '../platform/http/guarded-fetch.js'
import { createAddressPolicy, systemLookup, type Lookup } from '../platform/http/outbound-guard.js'
import { isUniqueViolation } from '../platform/db/errors.js'
import { inTransaction } from '../platform/db/transaction.js'
import { AppError } from '../platform/kit/errors.js'
import type { Clock } from '../platform/kit/clock.js'
import type { IdGenerator } from '../platform/kit/ids.js'
import type { PasswordPool } from './model/password-pool.js'
import { openFlow, sealFlow } from './model/sso-flow.js'
import { SSO_ERRORS } from './model/sso-errors.js'
import { emailDomainOf, normalizeDomain, type SsoRefusal } from './model/sso-rules.js'
import type { SessionsService } from './sessions-service.js'
import type { ActiveSession } from './model/sessions.js'
import { createSsoSettings, openSecret } from './sso-settings.js'
import { createSsoUsers } from './sso-users.js'
import * as repo from './store/sso.js'

export interface SsoServiceDeps {
  db: Db
  clock: Clock
  ids: IdGenerator
  log: Logger
  sessions: SessionsService
  passwords: PasswordPool
  /** Seals client secrets at rest (derived from the master secret for this purpose alone). */
  secretKey: Buffer
  /** Seals the flow cookie (model/sso-flow.ts). */
  flowKey: Buffer
  publicUrl: string
  /** MAILROOM_SSO_ALLOW_HTTP: an http:// issuer is accepted (development, tests). */
  allowHttp: boolean
  /** MAILROOM_SSO_ALLOW_CIDRS: private addresses an issuer may be at (else only public ones). */
  allowCidrs: readonly string[]
  /** Name resolution (tests play DNS answers); the system's by default. */
  lookup?: Lookup
}

export type SsoService = ReturnType<typeof createSsoService>

const CALLBACK_PATH = '/console/api/sso/callback'
const SCOPE = 'openid email profile'
/** A provider's discovery document and keys are fetched again after this long (or when its settings change). */
const DISCOVERY_TTL_MS = 10 * 60_000
const FAILED_DISCOVERY_TTL_MS = 30_000
/** A provider's documents (discovery, keys, tokens) are a few KiB; more is not a provider. */
const PROVIDER_MAX_BYTES = 256 * 1024
const PROVIDER_TIMEOUT_MS = 10_000

type SsoStart = { outcome: 'redirect'; url: string; flowCookie: string } | { outcome: 'refused'; reason: SsoRefusal }
type SsoFinish =
  { outcome: 'ok'; session: ActiveSession; cookieValue: string } | { outcome: 'refused'; reason: SsoRefusal }

/**
 * Staff single sign-on with OpenID Connect (issue 28.5): per subscription, the authorization code
 * flow with PKCE (S256), state and nonce, through `openid-client`, which validates the id_token
 * (signature from the provider's JWKS, issuer, audience, nonce, expiry). The rules of who signs in
 * are model/sso-rules.ts; the session is the password door's (sessions-service.ts `openSession`).
 */
export function createSsoService(deps: SsoServiceDeps) {
  const { db, clock, log } = deps
  const redirectUri = `${deps.publicUrl}${CALLBACK_PATH}`
  const discovered = new Map<string, { at: number; config: Promise<oidc.Configuration> }>()
  // The issuer is an admin's choice and a start is anonymous: every request to the provider goes
  // through the private-address guard of webhooks, with a deadline and a size cap.
  const guardedFetch = createGuardedFetch({
    policy: createAddressPolicy(deps.allowCidrs),
    lookup: deps.lookup ?? systemLookup,
    timeoutMs: PROVIDER_TIMEOUT_MS,
    maxBytes: PROVIDER_MAX_BYTES,
  })

  /** The provider’s configuration, discovered once per issuer, client and secret, and kept a while. */
  function configurationOf(s: repo.SsoSettingsRecord): Promise<oidc.Configuration> {
    // What the configuration is made of: a change of any of them (in any process) discovers afresh.
    const key = `${s.sub_id}|${s.issuer}|${s.client_id}|${s.client_secret_sealed ?? ''}`
    const now = clock.now().getTime()
    const cached = discovered.get(key)
    if (cached && now - cached.at < DISCOVERY_TTL_MS) return cached.config
    for (const k of discovered.keys()) if (k.startsWith(`${s.sub_id}|`)) discovered.delete(k)
    const secret = openSecret(deps.secretKey, s)
    const issuer = new URL(s.issuer!)
    const config = oidc.discovery(
      issuer,
      s.client_id!,
      secret,
      // client_secret_basic: the default of OpenID Connect client registration; none for a public client.
      secret === undefined ? oidc.None() : oidc.ClientSecretBasic(secret),
      {
        [oidc.customFetch]: guardedFetch,
        // openid-client 6 checks the id_token's signature (against the provider's JWKS, fetched
        // through the same guard) only with this: without it, issuer, audience and nonce alone.
        execute: [
          oidc.enableNonRepudiationChecks,
          ...(issuer.protocol === 'http:' && deps.allowHttp ? [oidc.allowInsecureRequests] : []),
        ],
        timeout: PROVIDER_TIMEOUT_MS / 1000,
      },
    )
    discovered.set(key, { at: now, config })
    // A failed discovery is kept a short while only: sign-ins retry soon, but a flood of them does
    // not make the service hammer a provider that is down.
    config.catch(() => discovered.set(key, { at: now - DISCOVERY_TTL_MS + FAILED_DISCOVERY_TTL_MS, config }))
    return config
  }

  const ssoUsers = createSsoUsers(deps)

  const settings = createSsoSettings({
    db,
    clock,
    secretKey: deps.secretKey,
    redirectUri,
    allowHttp: deps.allowHttp,
  })

  return {
    redirectUri,
    getSettings: settings.getSettings,
    putSettings: settings.putSettings,

    /** The operator's view (`mailroom sso domains`): every claim, granted or pending. */
    listDomainClaims: () => repo.listClaims(db),

    /**
     * The operator grants a subscription's claim on a domain (docs/sso.md): from then on the
     * sign-in page finds that subscription by it. Refused (SSO_DOMAIN_TAKEN) when another
     * subscription holds the grant (revoke that one first); false when it does not claim it.
     */
    async grantDomain(domain: string, subId: string): Promise<boolean> {
      const d = normalizeDomain(domain)
      try {
        return await inTransaction(db, (trx) => repo.grantClaim(trx, d, subId, clock.now()))
      } catch (e) {
        if (isUniqueViolation(e, 'sso_email_domains_granted_key'))
          throw new AppError(SSO_ERRORS.SSO_DOMAIN_TAKEN, {
            description: `${d} is granted to another subscription: revoke it first`,
          })
        throw e
      }
    },

    /** Every grant of the domain back to pending; how many there were. */
    revokeDomain: (domain: string) => repo.revokeGrant(db, normalizeDomain(domain)),

    /**
     * What the sign-in page may say of an email's domain after a refused password: whether its
     * subscription signs in through a provider, and whether passwords are off. Only what the
     * "Use single sign-on" button already shows (a domain with single sign-on goes to its provider).
     */
    async optionsFor(email: string): Promise<{ singleSignOn: boolean; passwordSignIn: boolean }> {
      const domain = emailDomainOf(email.trim())
      const s = domain === undefined ? undefined : await repo.findSettingsByDomain(db, domain)
      const on = Boolean(s?.enabled && s.issuer && s.client_id)
      return { singleSignOn: on, passwordSignIn: !on || s!.password_sign_in }
    },

    /** The sign-in page's "Use single sign-on": the provider's authorization URL and the flow cookie. */
    async start(email: string): Promise<SsoStart> {
      const domain = emailDomainOf(email.trim())
      const s = domain === undefined ? undefined : await repo.findSettingsByDomain(db, domain)
      if (!s?.enabled || !s.issuer || !s.client_id) return { outcome: 'refused', reason: 'not_configured' }
      let config: oidc.Configuration
      try {
        config = await configurationOf(s)
      } catch (e) {
        log.warn({ subId: s.sub_id, err: e }, 'single sign-on: provider discovery failed')
        return { outcome: 'refused', reason: 'failed' }
      }
      const codeVerifier = oidc.randomPKCECodeVerifier()
      const state = oidc.randomState()
      const nonce = oidc.randomNonce()
      const url = oidc.buildAuthorizationUrl(config, {
        redirect_uri: redirectUri,
        scope: SCOPE,
        code_challenge: await oidc.calculatePKCECodeChallenge(codeVerifier),
        code_challenge_method: 'S256',
        state,
        nonce,
        login_hint: email.trim(),
      })
      const flowCookie = sealFlow(
        deps.flowKey,
        { subId: s.sub_id, state, nonce, codeVerifier, email: email.trim() },
        clock.now().getTime(),
      )
      return { outcome: 'redirect', url: url.href, flowCookie }
    },

    /**
     * The provider's redirect back: the code exchanged (with the PKCE verifier, the exact redirect
     * URI and the client's credentials), the id_token checked, then the user matched or provisioned
     * and a console session opened. `callbackUrl` is the public URL of this request.
     */
    async finish(
      flowCookie: string | undefined,
      callbackUrl: URL,
      from: { userAgent?: string; previousCookie?: string },
    ): Promise<SsoFinish> {
      const refused = (reason: SsoRefusal, subId?: string): SsoFinish => {
        log.info({ subId, reason }, 'single sign-on refused')
        return { outcome: 'refused', reason }
      }
      const flow = openFlow(deps.flowKey, flowCookie, clock.now().getTime())
      if (!flow) return refused('expired')
      const s = await repo.findSettings(db, flow.subId)
      if (!s?.enabled || !s.issuer || !s.client_id) return refused('not_configured', flow.subId)
      let claims: oidc.IDToken
      try {
        const config = await configurationOf(s)
        const tokens = await oidc.authorizationCodeGrant(
          config,
          callbackUrl,
          {
            pkceCodeVerifier: flow.codeVerifier,
            expectedState: flow.state,
            expectedNonce: flow.nonce,
            idTokenExpected: true,
          },
          { redirect_uri: redirectUri },
        )
        claims = tokens.claims()!
      } catch (e) {
        log.warn({ subId: s.sub_id, err: e }, 'single sign-on: the provider’s answer failed')
        return refused('failed', s.sub_id)
      }
      const found = await ssoUsers.resolve(s, claims)
      if ('refused' in found) return refused(found.refused, s.sub_id)
      return { outcome: 'ok', ...(await deps.sessions.openSession(found.user, from)) }
    },
  }
}
