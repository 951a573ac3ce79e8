import { performance } from 'node:perf_hooks'
import type { Clock } from '../../platform/kit/clock.js'
import { openAuthSecret, openSigningSecret } from './credentials.js'
import { SendError, type HttpSender } from './http-sender.js'
import { TokenCache, TokenError } from './oauth2.js'
import { parseRetryAfter } from './retry.js'
import { standardHeaders } from './sign.js'
import type { ClaimedDelivery } from '../store/deliveries-claim.js'

export const USER_AGENT = 'mailroom-webhooks/1'

export interface AttemptDeps {
  sender: HttpSender
  tokens: TokenCache
  clock: Clock
  sealKey: Buffer
}

/** What one attempt did, for the attempt log and the retry decision. */
export interface AttemptResult {
  startedAt: Date
  latencyMs: number
  statusCode: number | null
  succeeded: boolean
  /** timeout | connect | dns | ssrf | tls | network | oauth | http_3xx | http_4xx | http_5xx */
  errorClass: string | null
  error: string | null
  responseBody: string | null
  retryAfterMs?: number
  /** 410 Gone: the receiver asks never to be called again. */
  gone: boolean
}

/** The notification body (CONTRACT §4): the same bytes on every retry, so a receiver may hash it. */
export function notificationBody(d: ClaimedDelivery): string {
  return JSON.stringify({
    eventId: d.event_id,
    eventName: d.event_name,
    type: d.variant,
    occurredAt: d.occurred_at.toISOString(),
    subId: d.sub_id,
    webHookConfigID: d.config_id,
    data: d.data ?? {
      message: 'Test notification from mailroom: your endpoint is reachable and the signature verifies.',
    },
  })
}

/** The signing secrets in force at `at`: the current one, and the previous one during a rotation's overlap. */
export function signingSecrets(d: ClaimedDelivery, sealKey: Buffer, at: Date): string[] {
  const secrets = [openSigningSecret(sealKey, d.config_id, d.signing_secret_sealed, 'current')]
  if (d.previous_secret_sealed && d.previous_secret_expires_at && d.previous_secret_expires_at > at) {
    secrets.push(openSigningSecret(sealKey, d.config_id, d.previous_secret_sealed, 'previous'))
  }
  return secrets
}

async function authHeaders(d: ClaimedDelivery, deps: AttemptDeps, timeoutMs: number): Promise<Record<string, string>> {
  const secret = d.auth_secret_sealed ? openAuthSecret(deps.sealKey, d.config_id, d.auth_secret_sealed) : ''
  const pub = d.auth_public
  switch (d.auth_type) {
    case 'custom':
      return { [pub.headerName!.toLowerCase()]: secret }
    case 'basic':
      return { authorization: `Basic ${Buffer.from(`${pub.username}:${secret}`).toString('base64')}` }
    case 'oauth2': {
      const token = await deps.tokens.token(
        d.config_id,
        { tokenUrl: pub.tokenUrl!, clientId: pub.clientId!, clientSecret: secret, scope: pub.scope },
        timeoutMs,
      )
      return { authorization: `Bearer ${token}` }
    }
    default:
      return {}
  }
}

function httpClass(status: number): string {
  if (status >= 500) return 'http_5xx'
  if (status >= 400) return 'http_4xx'
  if (status >= 300) return 'http_3xx'
  return 'http_1xx'
}

/** One attempt of one delivery: sign, authenticate, POST within timeOut, and say what happened. */
export async function attemptDelivery(d: ClaimedDelivery, deps: AttemptDeps): Promise<AttemptResult> {
  const startedAt = deps.clock.now()
  const t0 = performance.now()
  const timeoutMs = d.timeout_seconds * 1000
  const failed = (errorClass: string, error: string, extra: Partial<AttemptResult> = {}): AttemptResult => ({
    startedAt,
    latencyMs: Math.round(performance.now() - t0),
    statusCode: null,
    succeeded: false,
    errorClass,
    error,
    responseBody: null,
    gone: false,
    ...extra,
  })
  const body = notificationBody(d)
  const headers: Record<string, string> = {
    'content-type': 'application/json',
    'user-agent': USER_AGENT,
    ...standardHeaders(signingSecrets(d, deps.sealKey, startedAt), d.event_id, startedAt, body),
  }
  try {
    Object.assign(headers, await authHeaders(d, deps, timeoutMs))
  } catch (e) {
    if (e instanceof TokenError || e instanceof SendError) return failed('oauth', `OAuth2 token: ${e.message}`)
    throw e
  }
  let res
  try {
    res = await deps.sender.post({ url: d.url, headers, body, timeoutMs })
  } catch (e) {
    if (e instanceof SendError) return failed(e.errorClass, e.message)
    throw e
  }
  const latencyMs = Math.round(performance.now() - t0)
  if (res.status >= 200 && res.status < 300) {
    return {
      startedAt,
      latencyMs,
      statusCode: res.status,
      succeeded: true,
      errorClass: null,
      error: null,
      responseBody: res.body || null,
      gone: false,
    }
  }
  if (res.status === 401 && d.auth_type === 'oauth2') deps.tokens.invalidate(d.config_id)
  const error =
    res.status >= 300 && res.status < 400
      ? `HTTP ${res.status}: redirects are not followed${res.headers.location ? ` (Location: ${res.headers.location.slice(0, 200)})` : ''}`
      : `HTTP ${res.status}`
  return failed(httpClass(res.status), error, {
    latencyMs,
    statusCode: res.status,
    responseBody: res.body || null,
    gone: res.status === 410,
    retryAfterMs: parseRetryAfter(res.headers['retry-after'], startedAt),
  })
}
