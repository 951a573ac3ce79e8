import {
  createAddressPolicy,
  literalAddress,
  permittedAddresses,
  SsrfError,
  urlShapeProblem,
  type AddressPolicy,
  type ResolvedAddress,
} from './ssrf.js'
import { systemLookup, type Lookup } from '../../platform/http/outbound-guard.js'

export type { Lookup } from '../../platform/http/outbound-guard.js'

export interface DestinationRules {
  allowHttp: boolean
  policy: AddressPolicy
  lookup: Lookup
}

export function destinationRules(opts: {
  allowHttp: boolean
  allowCidrs: readonly string[]
  lookup?: Lookup
}): DestinationRules {
  return {
    allowHttp: opts.allowHttp,
    policy: createAddressPolicy(opts.allowCidrs),
    lookup: opts.lookup ?? systemLookup,
  }
}

/**
 * Why a receiver URL is refused when a configuration is saved, or undefined. Literal addresses and
 * names that resolve are checked now, so a mistake shows at once; a name that does not resolve yet
 * is accepted (DNS may follow the configuration), and the connection is checked again at send time.
 */
export async function destinationProblem(
  raw: string,
  rules: DestinationRules,
): Promise<{ kind: 'shape' | 'refused'; message: string } | undefined> {
  const shape = urlShapeProblem(raw, rules.allowHttp)
  if (shape) return { kind: 'shape', message: shape }
  const url = new URL(raw)
  const literal = literalAddress(url)
  try {
    if (literal) permittedAddresses(rules.policy, [{ address: literal, family: literal.includes(':') ? 6 : 4 }])
    else {
      let addresses: ResolvedAddress[]
      try {
        addresses = await rules.lookup(url.hostname)
      } catch {
        return undefined
      }
      permittedAddresses(rules.policy, addresses)
    }
  } catch (e) {
    if (e instanceof SsrfError)
      return {
        kind: 'refused',
        message: `is refused: ${url.hostname} is a ${e.reason.replace('_', '-')} address (${e.address}); webhooks go to public addresses only`,
      }
    throw e
  }
  return undefined
}
