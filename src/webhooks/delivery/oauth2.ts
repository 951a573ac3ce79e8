import { createHash } from 'node:crypto'
import type { Clock } from '../../platform/kit/clock.js'
import type { HttpSender } from './http-sender.js'

export interface ClientCredentials {
  tokenUrl: string
  clientId: string
  clientSecret: string
  scope?: string
}

/** The token endpoint refused or answered nonsense; the attempt fails with error class `oauth`. */
export class TokenError extends Error {
  constructor(
    message: string,
    readonly statusCode?: number,
  ) {
    super(message)
    this.name = 'TokenError'
  }
}

interface Cached {
  token: string
  expiresAt: number
}

/** Refetch this long before the announced expiry, so a token never expires on the wire. */
const EXPIRY_MARGIN_MS = 30_000
/** RFC 6749 §5.1 makes expires_in only RECOMMENDED; without it, reuse a token this long. */
const DEFAULT_LIFETIME_MS = 300_000

/**
 * OAuth2 client credentials (RFC 6749 §4.4) for receivers that want a bearer token: one token per
 * configuration and credential set, cached until shortly before it expires, one fetch at a time.
 * The token endpoint is reached through the same guarded sender as the webhook itself.
 */
export class TokenCache {
  readonly #cache = new Map<string, Cached>()
  readonly #pending = new Map<string, Promise<Cached>>()

  constructor(
    private readonly sender: HttpSender,
    private readonly clock: Clock,
  ) {}

  async token(configId: string, creds: ClientCredentials, timeoutMs: number): Promise<string> {
    const key = cacheKey(configId, creds)
    const hit = this.#cache.get(key)
    if (hit && hit.expiresAt > this.clock.now().getTime()) return hit.token
    let pending = this.#pending.get(key)
    if (!pending) {
      pending = this.#fetch(creds, timeoutMs).finally(() => this.#pending.delete(key))
      this.#pending.set(key, pending)
    }
    const fresh = await pending
    // Credentials changed since: drop the tokens of the old ones.
    for (const k of this.#cache.keys()) if (k.startsWith(`${configId}\0`) && k !== key) this.#cache.delete(k)
    this.#cache.set(key, fresh)
    return fresh.token
  }

  /** The receiver said 401 with our token: fetch a new one next time. */
  invalidate(configId: string): void {
    for (const k of this.#cache.keys()) if (k.startsWith(`${configId}\0`)) this.#cache.delete(k)
  }

  async #fetch(creds: ClientCredentials, timeoutMs: number): Promise<Cached> {
    const form = new URLSearchParams({ grant_type: 'client_credentials' })
    if (creds.scope) form.set('scope', creds.scope)
    // RFC 6749 §2.3.1: id and secret are form-urlencoded before they are joined and base64-encoded.
    const basic = Buffer.from(
      `${encodeURIComponent(creds.clientId)}:${encodeURIComponent(creds.clientSecret)}`,
    ).toString('base64')
    const res = await this.sender.post({
      url: creds.tokenUrl,
      headers: {
        'content-type': 'application/x-www-form-urlencoded',
        accept: 'application/json',
        authorization: `Basic ${basic}`,
      },
      body: form.toString(),
      timeoutMs,
      // Some identity providers issue multi-kilobyte JWTs.
      keepBytes: 64 * 1024,
    })
    if (res.status < 200 || res.status >= 300) throw new TokenError(`token endpoint answered ${res.status}`, res.status)
    let body: { access_token?: unknown; token_type?: unknown; expires_in?: unknown }
    try {
      body = JSON.parse(res.body) as typeof body
    } catch {
      throw new TokenError('token endpoint answered with something other than JSON')
    }
    if (typeof body.access_token !== 'string' || body.access_token === '')
      throw new TokenError('token endpoint answered without access_token')
    if (typeof body.token_type === 'string' && body.token_type.toLowerCase() !== 'bearer')
      throw new TokenError(`token endpoint issued a ${body.token_type} token; only Bearer is supported`)
    const lifetime =
      typeof body.expires_in === 'number' && body.expires_in > 0 ? body.expires_in * 1000 : DEFAULT_LIFETIME_MS
    return {
      token: body.access_token,
      expiresAt: this.clock.now().getTime() + Math.max(0, lifetime - EXPIRY_MARGIN_MS),
    }
  }
}

function cacheKey(configId: string, creds: ClientCredentials): string {
  const digest = createHash('sha256')
    .update(JSON.stringify([creds.tokenUrl, creds.clientId, creds.clientSecret, creds.scope ?? '']))
    .digest('base64url')
  return `${configId}\0${digest}`
}
