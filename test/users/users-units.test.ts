import { describe, expect, it } from 'vitest'
import { accessOf, ADMIN_ONLY, CLERK_WRITES, routeKey } from '../../src/access/api/console-access.js'
import { generatePassword, hashPassword, verifyPassword } from '../../src/access/model/passwords.js'
import { csrfMatches } from '../../src/access/model/sessions.js'

describe('accessOf', () => {
  it('makes listed routes admin-only, HEAD as its GET', () => {
    expect(accessOf('POST', '/api/v1/users')).toBe('admin')
    expect(accessOf('GET', '/api/v1/webhookConfig')).toBe('admin')
    expect(accessOf('HEAD', '/api/v1/webhookConfig')).toBe('admin')
    expect(routeKey('head', '/x')).toBe('GET /x')
  })
  it('lets clerks read, and write what the desk writes', () => {
    expect(accessOf('GET', '/api/v1/packages')).toBe('clerk')
    expect(accessOf('HEAD', '/api/v1/packages')).toBe('clerk')
    expect(accessOf('POST', '/api/v1/packages')).toBe('clerk')
    expect(accessOf('PUT', '/api/v1/contacts/:contactId')).toBe('clerk')
  })
  it('refuses clerks a write nobody classified', () => {
    expect(accessOf('POST', '/api/v1/something-new')).toBe('admin')
    expect(accessOf('DELETE', '/api/v1/packages/:packageId')).toBe('admin')
  })
  it('lists no route both ways', () => {
    expect([...ADMIN_ONLY].filter((k) => CLERK_WRITES.has(k))).toEqual([])
  })
})

describe('csrfMatches', () => {
  it('accepts only the exact token', () => {
    expect(csrfMatches('abc', 'abc')).toBe(true)
    expect(csrfMatches('abc', 'abd')).toBe(false)
    expect(csrfMatches('abc', 'ab')).toBe(false)
    expect(csrfMatches('abc', '')).toBe(false)
    expect(csrfMatches('abc', undefined)).toBe(false)
    expect(csrfMatches('abc', ['abc'])).toBe(false)
  })
})

describe('passwords', () => {
  it('hashes with argon2id in PHC form, salted, and verifies', async () => {
    const a = await hashPassword('correct horse battery')
    const b = await hashPassword('correct horse battery')
    expect(a).toMatch(/^\$argon2id\$v=19\$m=\d+,t=\d+,p=\d+\$/)
    expect(a).not.toBe(b)
    expect(await verifyPassword(a, 'correct horse battery')).toBe(true)
    expect(await verifyPassword(a, 'correct horse batterY')).toBe(false)
  })
  it('says no for an unknown user and for a malformed stored hash', async () => {
    expect(await verifyPassword(undefined, 'anything')).toBe(false)
    expect(await verifyPassword('not a hash', 'anything')).toBe(false)
  })
  it('generates 120-bit one-time passwords', () => {
    const p = generatePassword()
    expect(p).toMatch(/^[A-Za-z0-9_-]{20}$/)
    expect(generatePassword()).not.toBe(p)
  })
})
