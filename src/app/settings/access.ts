import { availableParallelism } from 'node:os'
import { flag, int, oneOf, section, text } from './define.js'
import type { Env } from './index.js'

/** Tokens, console sessions, and how many wrong guesses anyone gets. */
export const accessSettings = section({
  title: 'Tokens, sessions and guessing limits',
  keys: {
    AUTH_REGION: oneOf(['us', 'ca', 'global'], {
      default: 'us',
      description: 'part of the token issuer: a token minted for one region is refused by another',
    }),
    TOKEN_SIGNING_ALG: oneOf(['ES256', 'RS256', 'EdDSA'], {
      default: 'ES256',
      description:
        'algorithm of new token signing keys; a change rotates at the next start, older keys verify until they expire',
    }),
    SIGNING_KEY_ROTATION_DAYS: int({
      minimum: 1,
      maximum: 365,
      default: 30,
      description: 'token signing keys rotate on this schedule (and with `mailroom keys rotate`)',
    }),
    CLIENT_STATUS_CACHE_SECONDS: int({
      minimum: 0,
      maximum: 30,
      default: 10,
      description: "a disabled client's tokens are refused within this time",
    }),
    // The per-client-id count is 100 x the limit in an int4 column: the maximum keeps it far below 2^31.
    TOKEN_FAILURE_LIMIT: int({
      minimum: 1,
      maximum: 1_000_000,
      default: 10,
      description:
        'failed token requests and sign-ins per (client id or email, address) per window before 429 + Retry-After; 5 x per address, 100 x per client id',
    }),
    TOKEN_FAILURE_WINDOW_SECONDS: int({
      minimum: 1,
      maximum: 86_400,
      default: 300,
      description: 'the window of TOKEN_FAILURE_LIMIT; each further lock of a key doubles, at most 64 windows',
    }),
    PICKUP_CODE_FAILURE_LIMIT: int({
      minimum: 1,
      maximum: 1_000_000,
      default: 10,
      description:
        'wrong or used pickup codes one API client may send per window before 429 + Retry-After; the subscription as a whole 3 times as many',
    }),
    PICKUP_CODE_FAILURE_WINDOW_SECONDS: int({
      minimum: 1,
      maximum: 86_400,
      default: 900,
      description: 'the window of PICKUP_CODE_FAILURE_LIMIT; each further lock doubles, at most 4 windows',
    }),
    PASSWORD_HASH_CONCURRENCY: int({
      minimum: 0,
      maximum: 64,
      default: 0,
      description:
        'password hashes computed at once (0: half the cores, at least 1); the rest wait in PASSWORD_HASH_QUEUE',
    }),
    PASSWORD_HASH_QUEUE: int({
      minimum: 0,
      maximum: 10_000,
      default: 32,
      description: 'password hashes that may wait for a turn; past it sign-ins and password changes get 429',
    }),
    PASSWORD_HASHES_PER_KEY: int({
      minimum: 1,
      maximum: 1_000,
      default: 4,
      description: 'password hashes running or waiting for one address, or for one subscription; past it 429',
    }),
    CONSOLE_SESSION_IDLE_MINUTES: int({
      minimum: 1,
      maximum: 1440,
      default: 30,
      description: 'a console session ends after this many minutes without a request (sliding)',
    }),
    CONSOLE_SESSION_MAX_HOURS: int({
      minimum: 1,
      maximum: 720,
      default: 12,
      description: 'a console session ends this many hours after sign-in, whatever the activity',
    }),
    MAILROOM_SSO_ALLOW_HTTP: flag({
      default: 'false',
      description: 'accept plain http:// single sign-on issuers (development, tests)',
    }),
    MAILROOM_SSO_ALLOW_CIDRS: text({
      default: '',
      pattern: '^([0-9a-fA-F:.]+/\\d{1,3})?(,[0-9a-fA-F:.]+/\\d{1,3})*$',
      description:
        'comma-separated CIDRs a single sign-on issuer may be in although private (a provider on the local network), e.g. 10.0.0.0/8',
    }),
  },
})

export interface AccessConfig {
  authRegion: Env['AUTH_REGION']
  tokenSigningAlg: Env['TOKEN_SIGNING_ALG']
  signingKeyRotationDays: number
  clientStatusCacheSeconds: number
  tokenFailureLimit: number
  tokenFailureWindowSeconds: number
  /** Wrong pickup codes per API client and window (pickups/service.ts); 3× per subscription. */
  pickupCodeFailureLimit: number
  pickupCodeFailureWindowSeconds: number
  /** Console sign-in sessions: idle (sliding) and absolute lifetimes. */
  consoleSessions: { idleMinutes: number; maxHours: number }
  /** The bounded pool every password hash runs in (access/model/password-pool.ts). */
  passwordHashing: { concurrency: number; maxWaiting: number; perKey: number }
  /** Staff single sign-on (access/sso-service.ts). */
  sso: { allowHttp: boolean; allowCidrs: string[] }
}

export function accessConfig(env: Env): AccessConfig {
  return {
    authRegion: env.AUTH_REGION,
    tokenSigningAlg: env.TOKEN_SIGNING_ALG,
    signingKeyRotationDays: env.SIGNING_KEY_ROTATION_DAYS,
    clientStatusCacheSeconds: env.CLIENT_STATUS_CACHE_SECONDS,
    tokenFailureLimit: env.TOKEN_FAILURE_LIMIT,
    tokenFailureWindowSeconds: env.TOKEN_FAILURE_WINDOW_SECONDS,
    pickupCodeFailureLimit: env.PICKUP_CODE_FAILURE_LIMIT,
    pickupCodeFailureWindowSeconds: env.PICKUP_CODE_FAILURE_WINDOW_SECONDS,
    consoleSessions: { idleMinutes: env.CONSOLE_SESSION_IDLE_MINUTES, maxHours: env.CONSOLE_SESSION_MAX_HOURS },
    passwordHashing: {
      concurrency: env.PASSWORD_HASH_CONCURRENCY || Math.max(1, Math.floor(availableParallelism() / 2)),
      maxWaiting: env.PASSWORD_HASH_QUEUE,
      perKey: env.PASSWORD_HASHES_PER_KEY,
    },
    sso: {
      allowHttp: env.MAILROOM_SSO_ALLOW_HTTP === 'true',
      allowCidrs: env.MAILROOM_SSO_ALLOW_CIDRS.split(',')
        .map((c) => c.trim())
        .filter(Boolean),
    },
  }
}
