import { lookup as dnsLookup } from 'node:dns/promises'
import { BlockList, isIP, type LookupFunction } from 'node:net'

/**
 * Which destination addresses an outbound request to a URL someone else chose may reach (webhook
 * receivers, single sign-on issuers). Without this the service could be made to call into its own
 * network (the cloud metadata endpoint, the database, an admin port). Every class below is refused
 * unless an operator opens an exception (MAILROOM_WEBHOOK_ALLOW_CIDRS, MAILROOM_SSO_ALLOW_CIDRS).
 * Ranges: IANA IPv4/IPv6 special-purpose registries (RFC 6890 and successors).
 */
export type AddressClass =
  | 'unspecified'
  | 'loopback'
  | 'private'
  | 'link_local'
  | 'cgnat'
  | 'multicast'
  | 'broadcast'
  | 'documentation'
  | 'reserved'

type Range = readonly [network: string, prefix: number]

// Order matters: the first class that matches names the refusal (255.255.255.255 is broadcast
// before it is in 240/4). IPv4-mapped IPv6 (::ffff:a.b.c.d) matches the IPv4 ranges: BlockList
// checks a mapped address against its IPv4 rules.
const RANGES: ReadonlyArray<readonly [AddressClass, readonly Range[]]> = [
  [
    'unspecified',
    [
      ['0.0.0.0', 8],
      ['::', 128],
    ],
  ],
  [
    'loopback',
    [
      ['127.0.0.0', 8],
      ['::1', 128],
    ],
  ],
  [
    'private',
    [
      ['10.0.0.0', 8],
      ['172.16.0.0', 12],
      ['192.168.0.0', 16],
      ['fc00::', 7],
    ],
  ],
  [
    'link_local',
    [
      ['169.254.0.0', 16],
      ['fe80::', 10],
    ],
  ],
  ['cgnat', [['100.64.0.0', 10]]],
  [
    'multicast',
    [
      ['224.0.0.0', 4],
      ['ff00::', 8],
    ],
  ],
  ['broadcast', [['255.255.255.255', 32]]],
  [
    'documentation',
    [
      ['192.0.2.0', 24],
      ['198.51.100.0', 24],
      ['203.0.113.0', 24],
      ['2001:db8::', 32],
      ['3fff::', 20],
    ],
  ],
  [
    'reserved',
    [
      ['192.0.0.0', 24], // IETF protocol assignments
      ['192.88.99.0', 24], // 6to4 relay anycast (deprecated)
      ['198.18.0.0', 15], // benchmarking
      ['240.0.0.0', 4], // future use
      ['::', 96], // IPv4-compatible (deprecated)
      ['64:ff9b::', 96], // NAT64: would reach any IPv4 address, private ones included
      ['64:ff9b:1::', 48], // local-use NAT64
      ['100::', 64], // discard-only
      ['2001::', 23], // IETF protocol assignments, Teredo included
      ['2002::', 16], // 6to4: embeds an arbitrary IPv4 address
      ['fec0::', 10], // site-local (deprecated)
      ['5f00::', 16], // SRv6 SIDs
    ],
  ],
]

function listOf(ranges: readonly Range[]): BlockList {
  const list = new BlockList()
  for (const [network, prefix] of ranges) list.addSubnet(network, prefix, isIP(network) === 6 ? 'ipv6' : 'ipv4')
  return list
}

const CLASS_LISTS = RANGES.map(([cls, ranges]) => [cls, listOf(ranges)] as const)
// Only global unicast (2000::/3) is public IPv6; everything else is unallocated or special.
const GLOBAL_UNICAST_V6 = listOf([['2000::', 3]])
const IPV4_MAPPED = listOf([['::ffff:0:0', 96]])

function familyOf(ip: string): 'ipv4' | 'ipv6' {
  const v = isIP(ip)
  if (v === 0) throw new TypeError(`not an IP address: ${ip}`)
  return v === 4 ? 'ipv4' : 'ipv6'
}

/** The special-purpose class of an address, or 'public'. */
export function classifyAddress(ip: string): AddressClass | 'public' {
  const family = familyOf(ip)
  for (const [cls, list] of CLASS_LISTS) if (list.check(ip, family)) return cls
  if (family === 'ipv6' && !IPV4_MAPPED.check(ip, 'ipv6') && !GLOBAL_UNICAST_V6.check(ip, 'ipv6')) return 'reserved'
  return 'public'
}

export type AddressVerdict = { allowed: true } | { allowed: false; reason: AddressClass }

export interface AddressPolicy {
  check(ip: string): AddressVerdict
}

/** Public addresses pass; special ones only inside an operator's allow-listed CIDRs. */
export function createAddressPolicy(allowCidrs: readonly string[]): AddressPolicy {
  const allow = new BlockList()
  for (const cidr of allowCidrs) {
    const [network = '', bits = ''] = cidr.split('/')
    allow.addSubnet(network, Number(bits), familyOf(network))
  }
  return {
    check(ip) {
      const cls = classifyAddress(ip)
      if (cls === 'public' || allow.check(ip, familyOf(ip))) return { allowed: true }
      return { allowed: false, reason: cls }
    },
  }
}

/** A destination refused by the policy; `code` lets the sender classify it like a socket error. */
export class SsrfError extends Error {
  readonly code = 'ESSRF'
  constructor(
    readonly address: string,
    readonly reason: AddressClass,
  ) {
    super(`refused destination ${address} (${reason.replace('_', '-')} address)`)
    this.name = 'SsrfError'
  }
}

export interface ResolvedAddress {
  address: string
  family: number
}

/**
 * The resolved addresses a connection may use. A name that resolves to a mix (the DNS-rebinding
 * trick of one public and one private record) connects only to the permitted ones; none permitted
 * is a refusal naming the first refused address.
 */
export function permittedAddresses(policy: AddressPolicy, addresses: readonly ResolvedAddress[]): ResolvedAddress[] {
  const permitted: ResolvedAddress[] = []
  let refused: SsrfError | undefined
  for (const a of addresses) {
    const verdict = policy.check(a.address)
    if (verdict.allowed) permitted.push(a)
    else refused ??= new SsrfError(a.address, verdict.reason)
  }
  if (permitted.length === 0) throw refused ?? new SsrfError('(none)', 'unspecified')
  return permitted
}

/** The host part of a URL as an IP literal (brackets of IPv6 removed), or undefined for a name. */
export function literalAddress(url: URL): string | undefined {
  const host = url.hostname.startsWith('[') ? url.hostname.slice(1, -1) : url.hostname
  return isIP(host) ? host : undefined
}

/** Name resolution, injected so tests can play a DNS answer that changes between check and send. */
export type Lookup = (hostname: string) => Promise<ResolvedAddress[]>

export const systemLookup: Lookup = (hostname) => dnsLookup(hostname, { all: true, verbatim: true })

/**
 * The guard at connect time, as a `lookup` for net.connect (an undici Agent's `connect.lookup`):
 * every address a name resolves to is checked, and the socket connects to one that passed (net.connect
 * uses what this lookup returns; there is no second resolution). IP literals skip lookup in
 * net.connect: check them with `permittedAddresses` before the request.
 */
export function guardedLookup(policy: AddressPolicy, lookup: Lookup): LookupFunction {
  return (hostname, options, callback) => {
    lookup(hostname)
      .then((addresses) => {
        const family = options.family === 4 || options.family === 6 ? options.family : undefined
        if (addresses.length === 0)
          throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: 'ENOTFOUND' })
        const usable = permittedAddresses(policy, family ? addresses.filter((a) => a.family === family) : addresses)
        if (options.all) callback(null, usable)
        else callback(null, usable[0]!.address, usable[0]!.family)
      })
      .catch((err: NodeJS.ErrnoException) => callback(err, '', 0))
  }
}

/** Refuses a URL whose host is an IP literal outside the policy (names are checked at connect time). */
export function checkLiteralHost(policy: AddressPolicy, url: URL): void {
  const literal = literalAddress(url)
  if (literal) permittedAddresses(policy, [{ address: literal, family: literal.includes(':') ? 6 : 4 }])
}
