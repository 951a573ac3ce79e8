import { Agent, fetch as undiciFetch } from 'undici'
import { checkLiteralHost, guardedLookup, type AddressPolicy, type Lookup } from './outbound-guard.js'

export interface GuardedFetchOptions {
  policy: AddressPolicy
  lookup: Lookup
  /** The whole exchange, connection to last byte. */
  timeoutMs: number
  /** A body past this many bytes fails the request: a server cannot make us hold gigabytes. */
  maxBytes: number
}

/** A Fetch API function (as openid-client's `customFetch` takes) behind the outbound guard. */
export type GuardedFetch = (url: string, init: RequestInit) => Promise<Response>

/**
 * fetch to a URL someone else chose: the address guard at connect time (outbound-guard.ts), no
 * redirects followed, a deadline and a size cap on the body, which is read whole before the caller
 * sees it.
 */
export function createGuardedFetch(opts: GuardedFetchOptions): GuardedFetch & { close(): Promise<void> } {
  const agent = new Agent({ connect: { lookup: guardedLookup(opts.policy, opts.lookup) }, keepAliveTimeout: 10_000 })
  const guarded = async (url: string, init: RequestInit): Promise<Response> => {
    checkLiteralHost(opts.policy, new URL(url))
    const deadline = AbortSignal.timeout(opts.timeoutMs)
    const signal = init.signal ? AbortSignal.any([init.signal, deadline]) : deadline
    const res = await undiciFetch(url, {
      ...(init as Parameters<typeof undiciFetch>[1]),
      redirect: 'manual',
      signal,
      dispatcher: agent,
    })
    const declared = Number(res.headers.get('content-length') ?? 0)
    if (declared > opts.maxBytes) {
      await res.body?.cancel()
      throw new Error(`response of ${declared} bytes from ${new URL(url).host}: more than ${opts.maxBytes}`)
    }
    const chunks: Uint8Array[] = []
    let size = 0
    if (res.body)
      for await (const chunk of res.body as AsyncIterable<Uint8Array>) {
        size += chunk.byteLength
        if (size > opts.maxBytes) {
          await res.body.cancel().catch(() => {})
          throw new Error(`response from ${new URL(url).host}: more than ${opts.maxBytes} bytes`)
        }
        chunks.push(chunk)
      }
    const body = [101, 204, 205, 304].includes(res.status) ? null : Buffer.concat(chunks)
    return new Response(body, { status: res.status, statusText: res.statusText, headers: res.headers as Headers })
  }
  return Object.assign(guarded, { close: () => agent.close() })
}
