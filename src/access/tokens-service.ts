import { decodeProtectedHeader, errors as joseErrors, jwtVerify, SignJWT } from 'jose'
import type { Clock } from '../platform/kit/clock.js'
import { randomToken } from '../platform/kit/crypto.js'
import type { ClientIdentity, ClientsService } from './clients-service.js'
import { isSigningAlg, TOKEN_TTL_SECONDS, type KeyStore } from './model/key-store.js'

export const API_SCOPE = 'psapi'

/** Who is calling, as established by a verified access token. */
export interface Tenant {
  clientId: string
  subId: string
  scope: string
  tokenId: string
  expiresAt: Date
}

export interface TokenResponse {
  access_token: string
  expires_in: number
  scope: string
  token_type: 'Bearer'
}

/** A token that must be refused; the message is safe to send (RFC 6750 error_description). */
export class InvalidTokenError extends Error {
  constructor(
    message: string,
    readonly oauthError: 'invalid_token' | 'insufficient_scope' = 'invalid_token',
  ) {
    super(message)
    this.name = 'InvalidTokenError'
  }
}

export interface TokensServiceDeps {
  keys: KeyStore
  clients: ClientsService
  clock: Clock
  /** The issuer of the tokens this process signs. */
  issuer: string
  /** Which issuers' tokens are accepted (default: `issuer` only); see issuerAcceptor in config.ts. */
  acceptsIssuer?: (iss: unknown) => boolean
}

// Verifying a signature costs ~100-250 µs; a client reuses one token for hours, so the outcome
// is cached by the exact token text. A changed byte is a different key and is verified afresh.
const VERIFIED_CACHE_MAX = 20_000

export type TokensService = ReturnType<typeof createTokensService>

/** A verified token as the hot path reads it: its checks reduced to numbers and a flag. */
interface Verified {
  tenant: Tenant
  expiresAtMs: number
  scoped: boolean
  /** The version of the client's secret it was issued for: a newer secret refuses it. */
  secretVersion: number
}

/**
 * The private claim carrying the client's secret version. A new secret (access/clients-service.ts
 * newSecretOf) bumps the version, and tokens of the old one are refused through the client status
 * cache that already refuses a disabled client's: no token list, no extra read per request.
 */
const SECRET_VERSION_CLAIM = 'sv'

export function createTokensService(deps: TokensServiceDeps) {
  const verified = new Map<string, Verified>()
  const acceptsIssuer = deps.acceptsIssuer ?? ((iss: unknown) => iss === deps.issuer)

  async function verifySignature(token: string): Promise<{ tenant: Tenant; secretVersion: number }> {
    let kid: string | undefined
    let alg: string | undefined
    try {
      const header = decodeProtectedHeader(token)
      if (!isSigningAlg(header.alg))
        throw new InvalidTokenError('The access token is signed with an unsupported algorithm.')
      kid = header.kid
      alg = header.alg
    } catch (e) {
      if (e instanceof InvalidTokenError) throw e
      throw new InvalidTokenError('The access token is malformed.')
    }
    const found = kid ? await deps.keys.verificationKey(kid) : undefined
    if (!found) throw new InvalidTokenError('The access token was signed by an unknown key.')
    // A key verifies only tokens of its own algorithm (no algorithm confusion across keys).
    if (found.alg !== alg) throw new InvalidTokenError('The access token is signed with an unsupported algorithm.')
    try {
      const { payload } = await jwtVerify(token, found.key, {
        algorithms: [found.alg],
        typ: 'at+jwt',
        currentDate: deps.clock.now(),
        requiredClaims: ['sub', 'subId', 'scope', 'exp', 'iat', 'jti'],
      })
      if (!acceptsIssuer(payload.iss)) throw new InvalidTokenError('The access token was issued by another issuer.')
      if (typeof payload.subId !== 'string' || typeof payload.scope !== 'string' || typeof payload.sub !== 'string') {
        throw new InvalidTokenError('The access token is malformed.')
      }
      const version = payload[SECRET_VERSION_CLAIM]
      // Tokens issued before secret versions existed carry none: the first secret's (0).
      if (version !== undefined && (typeof version !== 'number' || !Number.isInteger(version)))
        throw new InvalidTokenError('The access token is malformed.')
      return {
        tenant: {
          clientId: payload.sub,
          subId: payload.subId,
          scope: payload.scope,
          tokenId: String(payload.jti),
          expiresAt: new Date(payload.exp! * 1000),
        },
        secretVersion: version ?? 0,
      }
    } catch (e) {
      if (e instanceof InvalidTokenError) throw e
      if (e instanceof joseErrors.JWTExpired) throw new InvalidTokenError('The access token expired.')
      if (e instanceof joseErrors.JWTClaimValidationFailed && e.claim === 'iss')
        throw new InvalidTokenError('The access token was issued by another issuer.')
      if (e instanceof joseErrors.JWSSignatureVerificationFailed)
        throw new InvalidTokenError('The access token signature is invalid.')
      throw new InvalidTokenError('The access token is invalid.')
    }
  }

  return {
    async issueToken(client: ClientIdentity): Promise<TokenResponse> {
      const { kid, alg, key } = deps.keys.signingKey()
      const now = Math.floor(deps.clock.now().getTime() / 1000)
      const accessToken = await new SignJWT({
        subId: client.subId,
        scope: API_SCOPE,
        client_id: client.clientId,
        [SECRET_VERSION_CLAIM]: client.secretVersion ?? 0,
      })
        .setProtectedHeader({ alg, kid, typ: 'at+jwt' })
        .setIssuer(deps.issuer)
        .setSubject(client.clientId)
        .setAudience(deps.issuer)
        .setIssuedAt(now)
        .setExpirationTime(now + TOKEN_TTL_SECONDS)
        .setJti(randomToken(16))
        .sign(key)
      return { access_token: accessToken, expires_in: TOKEN_TTL_SECONDS, scope: API_SCOPE, token_type: 'Bearer' }
    },

    /**
     * The hot path: a token verified before, still unexpired, with the psapi scope, whose client is
     * known active from the status cache. Synchronous so the auth hook allocates no promise.
     */
    peek(token: string): Tenant | undefined {
      const hit = verified.get(token)
      if (!hit || !hit.scoped) return undefined
      const now = deps.clock.now().getTime()
      if (hit.expiresAtMs <= now) return undefined
      return deps.clients.peekActive(hit.tenant.clientId, hit.secretVersion, now) === true ? hit.tenant : undefined
    },

    /** Signature, issuer, expiry and scope checked locally; the client's status through a short cache. */
    async verifyAccessToken(token: string): Promise<Tenant> {
      let hit = verified.get(token)
      if (!hit) {
        const checked = await verifySignature(token)
        hit = {
          tenant: checked.tenant,
          expiresAtMs: checked.tenant.expiresAt.getTime(),
          scoped: checked.tenant.scope.split(' ').includes(API_SCOPE),
          secretVersion: checked.secretVersion,
        }
        if (verified.size >= VERIFIED_CACHE_MAX) verified.delete(verified.keys().next().value!)
        verified.set(token, hit)
      }
      const tenant = hit.tenant
      if (hit.expiresAtMs <= deps.clock.now().getTime()) {
        verified.delete(token)
        throw new InvalidTokenError('The access token expired.')
      }
      if (!hit.scoped)
        throw new InvalidTokenError(`The access token lacks the ${API_SCOPE} scope.`, 'insufficient_scope')
      if (!(await deps.clients.isActive(tenant.clientId, hit.secretVersion)))
        throw new InvalidTokenError(
          'The client of this access token is disabled, or its secret was replaced: get a new token.',
        )
      return tenant
    },
  }
}
