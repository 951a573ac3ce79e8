import { Agent, request } from 'undici'
import type { DestinationRules } from './destination.js'
import { guardedLookup } from '../../platform/http/outbound-guard.js'
import { literalAddress, permittedAddresses, SsrfError, urlShapeProblem } from './ssrf.js'

/** The one seam for outbound HTTP: the worker and the OAuth2 token fetch go through it; tests may swap it. */
export interface OutboundRequest {
  url: string
  headers: Record<string, string>
  body: string
  timeoutMs: number
  /** How much of the response body to read; default RESPONSE_KEEP_BYTES. */
  keepBytes?: number
}

export interface OutboundResponse {
  status: number
  headers: Record<string, string | undefined>
  /** The first `keepBytes` of the body, as text. */
  body: string
}

export interface HttpSender {
  post(req: OutboundRequest): Promise<OutboundResponse>
  close(): Promise<void>
}

export type SendErrorClass = 'timeout' | 'connect' | 'dns' | 'ssrf' | 'tls' | 'network'

export class SendError extends Error {
  constructor(
    readonly errorClass: SendErrorClass,
    message: string,
  ) {
    super(message)
    this.name = 'SendError'
  }
}

export const RESPONSE_KEEP_BYTES = 4096

const CONNECT_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'EPIPE',
  'ECONNABORTED',
  'UND_ERR_SOCKET',
  'UND_ERR_CLOSED',
])
const TIMEOUT_CODES = new Set([
  'UND_ERR_CONNECT_TIMEOUT',
  'UND_ERR_HEADERS_TIMEOUT',
  'UND_ERR_BODY_TIMEOUT',
  'ETIMEDOUT',
  'ABORT_ERR',
])

/** The class of a failed exchange, from the error and its causes (undici wraps socket errors). */
export function classifySendError(err: unknown): SendErrorClass {
  for (
    let e = err as { code?: string; name?: string; cause?: unknown } | undefined, depth = 0;
    e && depth < 5;
    e = e.cause as typeof e, depth++
  ) {
    if (e instanceof SsrfError || e.code === 'ESSRF') return 'ssrf'
    if (e.name === 'TimeoutError' || (e.code && TIMEOUT_CODES.has(e.code))) return 'timeout'
    if (e.code === 'ENOTFOUND' || e.code === 'EAI_AGAIN' || e.code === 'EAI_FAIL' || e.code === 'EAI_NODATA')
      return 'dns'
    if (
      e.code &&
      (e.code.startsWith('ERR_TLS') || e.code.startsWith('ERR_SSL') || /CERT|SELF_SIGNED|UNABLE_TO_VERIFY/.test(e.code))
    )
      return 'tls'
    if (e.code && CONNECT_CODES.has(e.code)) return 'connect'
  }
  return 'network'
}

function messageOf(err: unknown): string {
  const e = err as { message?: string; cause?: { message?: string } }
  const own = e?.message ?? String(err)
  return e?.cause?.message && !own.includes(e.cause.message) ? `${own}: ${e.cause.message}` : own
}

/**
 * undici with the SSRF guard at connect time (platform/http/outbound-guard.ts `guardedLookup`). IP
 * literals skip lookup in net.connect, so they are checked before the request. Redirects are never followed: undici's request() follows none by default,
 * and a 3xx is reported as a failure by the caller.
 */
export function createGuardedSender(rules: DestinationRules): HttpSender {
  const agent = new Agent({ connect: { lookup: guardedLookup(rules.policy, rules.lookup) }, keepAliveTimeout: 10_000 })

  return {
    async post(req) {
      const shape = urlShapeProblem(req.url, rules.allowHttp)
      if (shape) throw new SendError('ssrf', `url ${shape}`)
      const literal = literalAddress(new URL(req.url))
      try {
        if (literal) permittedAddresses(rules.policy, [{ address: literal, family: literal.includes(':') ? 6 : 4 }])
        const res = await request(req.url, {
          method: 'POST',
          headers: req.headers,
          body: req.body,
          dispatcher: agent,
          signal: AbortSignal.timeout(req.timeoutMs),
        })
        const keep = req.keepBytes ?? RESPONSE_KEEP_BYTES
        const chunks: Buffer[] = []
        let size = 0
        for await (const chunk of res.body) {
          chunks.push(chunk as Buffer)
          size += (chunk as Buffer).length
          // Stop reading (and drop the connection) past what is kept: a receiver cannot make us download gigabytes.
          if (size >= keep) break
        }
        const headers: Record<string, string | undefined> = {}
        for (const [k, v] of Object.entries(res.headers)) headers[k] = Array.isArray(v) ? v.join(', ') : v
        return { status: res.statusCode, headers, body: Buffer.concat(chunks).subarray(0, keep).toString('utf8') }
      } catch (err) {
        if (err instanceof SendError) throw err
        throw new SendError(classifySendError(err), messageOf(err))
      }
    },
    close: () => agent.close(),
  }
}
