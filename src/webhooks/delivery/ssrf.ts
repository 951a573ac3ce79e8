// The address guard is the platform's (platform/http/outbound-guard.ts), shared with single sign-on;
// the shape of a receiver URL is the webhooks' own.
export {
  classifyAddress,
  createAddressPolicy,
  literalAddress,
  permittedAddresses,
  SsrfError,
  type AddressPolicy,
  type ResolvedAddress,
} from '../../platform/http/outbound-guard.js'

/** Shape rules of a receiver URL, before any resolution: a problem description, or undefined. */
export function urlShapeProblem(raw: string, allowHttp: boolean): string | undefined {
  let url: URL
  try {
    url = new URL(raw)
  } catch {
    return 'must be an absolute URL'
  }
  if (url.protocol !== 'https:' && !(allowHttp && url.protocol === 'http:'))
    return allowHttp ? 'must be an http:// or https:// URL' : 'must be an https:// URL'
  if (url.username || url.password) return 'must not carry credentials; put them in authParams'
  if (!url.hostname) return 'must name a host'
  return undefined
}
