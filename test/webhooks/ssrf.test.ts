import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { classifySendError } from '../../src/webhooks/delivery/http-sender.js'
import {
  classifyAddress,
  createAddressPolicy,
  literalAddress,
  permittedAddresses,
  SsrfError,
  urlShapeProblem,
} from '../../src/webhooks/delivery/ssrf.js'

const toV4 = (n: number) => [n >>> 24, (n >>> 16) & 255, (n >>> 8) & 255, n & 255].join('.')
const fromV4 = (ip: string) => ip.split('.').reduce((acc, o) => acc * 256 + Number(o), 0)

// The IPv4 special-purpose ranges and the class each must get; everything else is public.
const V4: Array<[string, number, string]> = [
  ['0.0.0.0', 8, 'unspecified'],
  ['10.0.0.0', 8, 'private'],
  ['100.64.0.0', 10, 'cgnat'],
  ['127.0.0.0', 8, 'loopback'],
  ['169.254.0.0', 16, 'link_local'],
  ['172.16.0.0', 12, 'private'],
  ['192.0.0.0', 24, 'reserved'],
  ['192.0.2.0', 24, 'documentation'],
  ['192.88.99.0', 24, 'reserved'],
  ['192.168.0.0', 16, 'private'],
  ['198.18.0.0', 15, 'reserved'],
  ['198.51.100.0', 24, 'documentation'],
  ['203.0.113.0', 24, 'documentation'],
  ['224.0.0.0', 4, 'multicast'],
  ['240.0.0.0', 4, 'reserved'],
]
function expectedV4(n: number): string {
  if (n === 0xffffffff) return 'broadcast'
  for (const [net, bits, cls] of V4) {
    const size = 2 ** (32 - bits)
    const start = fromV4(net)
    if (n >= start && n < start + size) return cls
  }
  return 'public'
}

describe('address classification', () => {
  it('classifies the edges of every IPv4 range, and one address either side', () => {
    for (const [net, bits, cls] of V4) {
      const start = fromV4(net)
      const end = start + 2 ** (32 - bits) - 1
      expect(classifyAddress(toV4(start)), `${net}/${bits} first`).toBe(cls)
      expect(classifyAddress(toV4(end)), `${net}/${bits} last`).toBe(end === 0xffffffff ? 'broadcast' : cls)
      if (start > 0) expect(classifyAddress(toV4(start - 1))).toBe(expectedV4(start - 1))
      if (end < 0xffffffff) expect(classifyAddress(toV4(end + 1))).toBe(expectedV4(end + 1))
    }
  })

  it('agrees with the range table on any IPv4 address, and on its IPv4-mapped IPv6 form', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 0xffffffff }), (n) => {
        const ip = toV4(n)
        expect(classifyAddress(ip)).toBe(expectedV4(n))
        expect(classifyAddress(`::ffff:${ip}`)).toBe(expectedV4(n) === 'public' ? 'public' : expectedV4(n))
        const hex = `::ffff:${(n >>> 16).toString(16)}:${(n & 0xffff).toString(16)}`
        expect(classifyAddress(hex)).toBe(expectedV4(n))
      }),
      { numRuns: 5000 },
    )
  })

  it.each([
    ['169.254.169.254', 'link_local'],
    ['::ffff:169.254.169.254', 'link_local'],
    ['255.255.255.255', 'broadcast'],
    ['::', 'unspecified'],
    ['::1', 'loopback'],
    ['::ffff:127.0.0.1', 'loopback'],
    ['::ffff:7f00:1', 'loopback'],
    ['::ffff:10.1.2.3', 'private'],
    ['fc00::1', 'private'],
    ['fdff:ffff::1', 'private'],
    ['fe80::1', 'link_local'],
    ['febf::1', 'link_local'],
    ['fec0::1', 'reserved'],
    ['ff02::1', 'multicast'],
    ['ff0e::1', 'multicast'],
    ['2001:db8::1', 'documentation'],
    ['3fff::1', 'documentation'],
    ['64:ff9b::a00:1', 'reserved'],
    ['64:ff9b::8.8.8.8', 'reserved'],
    ['64:ff9b:1::1', 'reserved'],
    ['100::1', 'reserved'],
    ['2001::1', 'reserved'],
    ['2001:0:4136:e378::1', 'reserved'],
    ['2002:c0a8:101::1', 'reserved'],
    ['5f00::1', 'reserved'],
    ['::1.2.3.4', 'reserved'],
    ['::2', 'reserved'],
    ['1::1', 'reserved'],
    ['4000::1', 'reserved'],
    ['e000::1', 'reserved'],
    ['2606:4700:4700::1111', 'public'],
    ['2a00:1450:4001::1', 'public'],
    ['2001:4860:4860::8888', 'public'],
    ['::ffff:8.8.8.8', 'public'],
    ['8.8.8.8', 'public'],
    ['1.1.1.1', 'public'],
    ['100.63.255.255', 'public'],
    ['100.128.0.0', 'public'],
    ['172.15.255.255', 'public'],
    ['172.32.0.0', 'public'],
    ['223.255.255.255', 'public'],
  ])('%s is %s', (ip, cls) => {
    expect(classifyAddress(ip)).toBe(cls)
  })

  it('refuses what is not an address', () => {
    expect(() => classifyAddress('localhost')).toThrow(TypeError)
    expect(() => classifyAddress('10.0.0.256')).toThrow(TypeError)
  })
})

describe('address policy', () => {
  it('allows public addresses and refuses every special class, naming it', () => {
    const policy = createAddressPolicy([])
    expect(policy.check('8.8.8.8')).toEqual({ allowed: true })
    expect(policy.check('127.0.0.1')).toEqual({ allowed: false, reason: 'loopback' })
    expect(policy.check('::ffff:192.168.1.1')).toEqual({ allowed: false, reason: 'private' })
  })

  it('opens exactly the allow-listed CIDRs, IPv4-mapped forms included', () => {
    const policy = createAddressPolicy(['127.0.0.0/8', '10.1.0.0/16', 'fd00::/8'])
    expect(policy.check('127.0.0.1').allowed).toBe(true)
    expect(policy.check('::ffff:127.0.0.1').allowed).toBe(true)
    expect(policy.check('10.1.200.3').allowed).toBe(true)
    expect(policy.check('10.2.0.1')).toEqual({ allowed: false, reason: 'private' })
    expect(policy.check('fd12::1').allowed).toBe(true)
    expect(policy.check('fc00::1').allowed).toBe(false)
    expect(policy.check('::1')).toEqual({ allowed: false, reason: 'loopback' })
  })

  it('connects only to permitted addresses of a mixed answer, and refuses when none is', () => {
    const policy = createAddressPolicy([])
    const mixed = [
      { address: '10.0.0.1', family: 4 },
      { address: '93.184.216.34', family: 4 },
    ]
    expect(permittedAddresses(policy, mixed)).toEqual([{ address: '93.184.216.34', family: 4 }])
    expect(() =>
      permittedAddresses(policy, [
        { address: '169.254.169.254', family: 4 },
        { address: 'fe80::1', family: 6 },
      ]),
    ).toThrow(SsrfError)
    try {
      permittedAddresses(policy, [{ address: '169.254.169.254', family: 4 }])
    } catch (e) {
      expect(e).toMatchObject({ code: 'ESSRF', reason: 'link_local', address: '169.254.169.254' })
    }
    expect(() => permittedAddresses(policy, [])).toThrow(SsrfError)
  })
})

describe('URL rules', () => {
  it.each([
    ['https://hooks.example.com/x', false, undefined],
    ['http://hooks.example.com/x', false, 'must be an https:// URL'],
    ['http://hooks.example.com/x', true, undefined],
    ['ftp://hooks.example.com/x', true, 'must be an http:// or https:// URL'],
    ['https://user:pw@hooks.example.com/', false, 'must not carry credentials; put them in authParams'],
    ['hooks.example.com', false, 'must be an absolute URL'],
    ['file:///etc/passwd', true, 'must be an http:// or https:// URL'],
  ])('%s (allowHttp %s)', (url, allowHttp, problem) => {
    expect(urlShapeProblem(url, allowHttp)).toBe(problem)
  })

  it('reads IP literals in every spelling the URL parser accepts', () => {
    expect(literalAddress(new URL('http://[::1]:8080/'))).toBe('::1')
    expect(literalAddress(new URL('http://[::ffff:127.0.0.1]/'))).toBe('::ffff:7f00:1')
    expect(literalAddress(new URL('http://2130706433/'))).toBe('127.0.0.1')
    expect(literalAddress(new URL('http://0x7f.1/'))).toBe('127.0.0.1')
    expect(literalAddress(new URL('http://017700000001/'))).toBe('127.0.0.1')
    expect(literalAddress(new URL('https://example.com/'))).toBeUndefined()
  })
})

describe('send error classes', () => {
  it.each([
    [Object.assign(new Error('x'), { name: 'TimeoutError' }), 'timeout'],
    [Object.assign(new Error('x'), { code: 'UND_ERR_CONNECT_TIMEOUT' }), 'timeout'],
    [Object.assign(new Error('x'), { code: 'ECONNREFUSED' }), 'connect'],
    [
      Object.assign(new Error('fetch failed'), { cause: Object.assign(new Error('y'), { code: 'ECONNRESET' }) }),
      'connect',
    ],
    [Object.assign(new Error('x'), { code: 'ENOTFOUND' }), 'dns'],
    [Object.assign(new Error('x'), { code: 'EAI_AGAIN' }), 'dns'],
    [new SsrfError('10.0.0.1', 'private'), 'ssrf'],
    [Object.assign(new Error('x'), { cause: new SsrfError('10.0.0.1', 'private') }), 'ssrf'],
    [Object.assign(new Error('x'), { code: 'DEPTH_ZERO_SELF_SIGNED_CERT' }), 'tls'],
    [Object.assign(new Error('x'), { code: 'ERR_TLS_CERT_ALTNAME_INVALID' }), 'tls'],
    [new Error('something else'), 'network'],
  ])('%s → %s', (err, cls) => {
    expect(classifySendError(err)).toBe(cls)
  })
})
