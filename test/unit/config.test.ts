import { describe, expect, it } from 'vitest'
import { ConfigError, issuerAcceptor, issuerOf, loadConfig } from '../../src/app/config.js'
import { EnvSchema } from '../../src/app/settings/index.js'

function problemsOf(env: Record<string, string>): string[] {
  try {
    loadConfig(env)
  } catch (e) {
    if (e instanceof ConfigError) return e.problems
    throw e
  }
  return []
}

describe('loadConfig', () => {
  it('has working defaults: embedded database in ./data, port 8080, development', () => {
    const c = loadConfig({})
    expect(c).toMatchObject({
      port: 8080,
      host: '127.0.0.1',
      env: 'development',
      authRegion: 'us',
      demo: true,
      logLevel: 'info',
    })
    expect(c.database).toEqual({ kind: 'pglite', dir: expect.stringMatching(/data[\\/]pglite$/) })
    expect(c.prefixes).toEqual({
      receiving: '',
      auth: '/auth',
      trackingWebhooks: '/webhooks/tracking',
      lockerWebhooks: '/webhooks/locker',
    })
    expect(Object.isFrozen(c)).toBe(true)
  })

  it('reads typed values', () => {
    const c = loadConfig({
      PORT: '9000',
      DATABASE_URL: 'postgres://u@h/db',
      AUTH_REGION: 'ca',
      AUTH_PREFIX: '/oauth/',
      MAILROOM_BOOTSTRAP_CLIENT: 'client-1234:' + 's'.repeat(40) + ':acme',
    })
    expect(c.port).toBe(9000)
    expect(c.database).toEqual({ kind: 'postgres', url: 'postgres://u@h/db', poolSize: 10 })
    expect(c.prefixes.auth).toBe('/oauth')
    expect(c.bootstrapClient).toEqual({ clientId: 'client-1234', clientSecret: 's'.repeat(40), subscription: 'acme' })
    expect(issuerOf(c)).toBe('http://localhost:9000/oauth/ca')
  })

  it('lists every bad value at once', () => {
    try {
      loadConfig({
        PORT: 'eighty',
        MAILROOM_ENV: 'prod',
        LOG_LEVEL: 'loud',
        AUTH_REGION: 'eu',
        DATABASE_URL: 'mysql://x',
        MAILROOM_SECRET: 'short',
      })
      expect.unreachable()
    } catch (e) {
      expect(e).toBeInstanceOf(ConfigError)
      const keys = (e as ConfigError).problems.map((p) => p.split('=')[0])
      expect(keys.sort()).toEqual([
        'AUTH_REGION',
        'DATABASE_URL',
        'LOG_LEVEL',
        'MAILROOM_ENV',
        'MAILROOM_SECRET',
        'PORT',
      ])
      expect((e as ConfigError).message).not.toContain('short')
      expect((e as ConfigError).message).toContain('must be one of development, qa, sandbox, production')
    }
  })

  it('refuses the embedded database, a generated secret and bootstrap clients in production', () => {
    expect(() =>
      loadConfig({ MAILROOM_ENV: 'production', MAILROOM_BOOTSTRAP_CLIENT: 'client-1234:' + 's'.repeat(40) }),
    ).toThrow(ConfigError)
    try {
      loadConfig({ MAILROOM_ENV: 'production' })
    } catch (e) {
      expect((e as ConfigError).problems.join('\n')).toMatch(/DATABASE_URL[\s\S]*MAILROOM_SECRET/)
    }
    const ok = loadConfig({
      MAILROOM_ENV: 'production',
      DATABASE_URL: 'postgres://x/y',
      MAILROOM_SECRET: 'x'.repeat(40),
      MAILROOM_PUBLIC_URL: 'https://mailroom.example.com',
    })
    expect(ok.demo).toBe(false)
  })

  it('names one issuer for every process: production needs MAILROOM_PUBLIC_URL, development accepts sibling localhost ports', () => {
    expect(() =>
      loadConfig({ MAILROOM_ENV: 'production', DATABASE_URL: 'postgres://x/y', MAILROOM_SECRET: 'x'.repeat(40) }),
    ).toThrow(/MAILROOM_PUBLIC_URL/)
    const pinned = loadConfig({ PORT: '9001', MAILROOM_PUBLIC_URL: 'https://mail.example.com' })
    expect(issuerAcceptor(pinned)('https://mail.example.com/auth/us')).toBe(true)
    expect(issuerAcceptor(pinned)('http://localhost:9002/auth/us')).toBe(false)
    const dev = loadConfig({ PORT: '9001' })
    expect(issuerOf(dev)).toBe('http://localhost:9001/auth/us')
    const accepts = issuerAcceptor(dev)
    expect(['http://localhost:9001/auth/us', 'http://localhost:9002/auth/us'].map(accepts)).toEqual([true, true])
    expect(
      [
        'http://localhost:9002/auth/ca',
        'http://localhost:9002/oauth/us',
        'http://evil.example:9002/auth/us',
        'http://localhost:x/auth/us',
        'http://localhost:1/2/auth/us',
        undefined,
      ].map(accepts),
    ).toEqual([false, false, false, false, false, false])
  })

  it('lists cross-key problems together with malformed values', () => {
    try {
      loadConfig({ MAILROOM_ENV: 'production', PORT: 'x' })
      expect.unreachable()
    } catch (e) {
      const keys = (e as ConfigError).problems.map((p) => p.split(/[=:]/)[0])
      expect(keys).toEqual(['PORT', 'DATABASE_URL', 'MAILROOM_SECRET', 'MAILROOM_PUBLIC_URL'])
    }
  })

  it('believes X-Forwarded-For only from the proxies it is told to trust', () => {
    expect(loadConfig({}).trustProxy).toBe(false)
    expect(loadConfig({ TRUST_PROXY: 'true' }).trustProxy).toBe(true)
    expect(loadConfig({ TRUST_PROXY: '1' }).trustProxy).toBe(1)
    expect(loadConfig({ TRUST_PROXY: '10.0.0.0/8,127.0.0.1' }).trustProxy).toBe('10.0.0.0/8,127.0.0.1')
    expect(() => loadConfig({ TRUST_PROXY: 'everyone' })).toThrow(/TRUST_PROXY/)
  })

  it('refuses two interfaces on one prefix', () => {
    expect(() => loadConfig({ AUTH_PREFIX: '/webhooks/tracking' })).toThrow(/own mount prefix/)
    expect(() => loadConfig({ AUTH_PREFIX: '/' })).toThrow(ConfigError)
  })
})

describe('availability settings (issue 14)', () => {
  it('parses per-subscription rate limit overrides and refuses a malformed list', () => {
    const base = { MAILROOM_DATA_DIR: '/tmp/x' }
    expect([...loadConfig({ ...base, RATE_LIMIT_OVERRIDES: 'sub_a=100,sub_b=5' }).limits.rate.overrides]).toEqual([
      ['sub_a', 100],
      ['sub_b', 5],
    ])
    expect(() => loadConfig({ ...base, RATE_LIMIT_OVERRIDES: 'sub_a:100' })).toThrow(/RATE_LIMIT_OVERRIDES/)
    expect(() => loadConfig({ ...base, HTTP_HEADERS_TIMEOUT_MS: '5000', HTTP_REQUEST_TIMEOUT_MS: '1000' })).toThrow(
      /HTTP_HEADERS_TIMEOUT_MS/,
    )
  })

  it('turns each fairness mechanism off by name (FAIRNESS_OFF, for bench:neighbour) and refuses an unknown one', () => {
    const base = { MAILROOM_DATA_DIR: '/tmp/x', HEAVY_OPERATIONS_MAX: '2' }
    const on = loadConfig(base).limits
    expect(on).toMatchObject({
      concurrent: { searches: 2, exports: 1, bulkOperations: 2 },
      heavyOperations: 2,
      heavyShare: { share: 0.3 },
      refusalDelayMs: 1000,
      presence: true,
    })
    const off = loadConfig({
      ...base,
      FAIRNESS_OFF: 'tenant-gate,heavy-slots,time-share,presence,refusal-pacing',
    }).limits
    expect(off).toMatchObject({
      concurrent: { searches: 1000, exports: 1000, bulkOperations: 1000 },
      heavyOperations: 1000,
      heavyShare: { share: 1 },
      refusalDelayMs: 0,
      presence: false,
    })
    expect(loadConfig({ ...base, FAIRNESS_OFF: 'time-share' }).limits).toMatchObject({
      concurrent: on.concurrent,
      heavyOperations: 2,
      heavyShare: { share: 1 },
    })
    expect(() => loadConfig({ ...base, FAIRNESS_OFF: 'rate-limit' })).toThrow(/FAIRNESS_OFF/)
  })
})

describe('the settings tables (issue 24.5, 26.9)', () => {
  const settings = Object.entries(EnvSchema.properties)
  const numeric = settings.filter(([, s]) => s.type === 'integer' || s.type === 'number')

  it('describe every key, and give every number a default within a documented minimum and maximum', () => {
    expect(settings.length).toBeGreaterThanOrEqual(76)
    for (const [key, schema] of settings) expect(schema.description, key).toMatch(/\S{3}/)
    expect(numeric.length).toBeGreaterThan(40)
    for (const [key, s] of numeric) {
      const low = (s.minimum ?? s.exclusiveMinimum) as number
      expect([key, typeof low, typeof s.maximum]).toEqual([key, 'number', 'number'])
      expect(s.default as number, key).toBeGreaterThanOrEqual(low)
      expect(s.default as number, key).toBeLessThanOrEqual(s.maximum as number)
    }
  })

  it('accepts every number at its maximum, and refuses each one past it, all reported at once', () => {
    const at = Object.fromEntries(numeric.map(([k, s]) => [k, String(s.maximum)]))
    // The cross-key rules hold at the maxima only if the headers timeout is not above the request timeout.
    expect(() => loadConfig({ ...at, HTTP_HEADERS_TIMEOUT_MS: '600000' })).not.toThrow()
    const past = Object.fromEntries(numeric.map(([k, s]) => [k, String((s.maximum as number) + 1)]))
    const keys = problemsOf(past).map((p) => p.split('=')[0])
    expect(keys.sort()).toEqual(numeric.map(([k]) => k).sort())
  })

  it('refuses a TOKEN_FAILURE_LIMIT whose per-client-id count would overflow (was a 500 on every failed login)', () => {
    expect(loadConfig({ TOKEN_FAILURE_LIMIT: '1000000' }).tokenFailureLimit).toBe(1_000_000)
    expect(problemsOf({ TOKEN_FAILURE_LIMIT: '21474837' })).toEqual([
      expect.stringMatching(/^TOKEN_FAILURE_LIMIT=21474837: Expected integer to be less or equal to 1000000/),
    ])
  })

  it('bounds each limit of RATE_LIMIT_OVERRIDES like RATE_LIMIT_MAX', () => {
    expect(loadConfig({ RATE_LIMIT_OVERRIDES: 'sub_a=1000000000' }).limits.rate.overrides.get('sub_a')).toBe(1e9)
    expect(problemsOf({ RATE_LIMIT_OVERRIDES: 'sub_a=5,sub_b=1000000001' })).toEqual([
      'RATE_LIMIT_OVERRIDES: the limit of sub_b must be at most 1000000000',
    ])
  })
})
