import { readFileSync } from 'node:fs'
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { FLOW_SECONDS, openFlow, sealFlow, type SsoFlow } from '../../src/access/model/sso-flow.js'
import {
  decideSsoUser,
  ssoEmailOf,
  DOMAIN_PATTERN,
  emailDomainOf,
  maskSecret,
  normalizeDomain,
  passwordSignInAllowed,
  settingsProblems,
  SSO_REFUSALS,
  type SsoPolicy,
  type SsoSettingsInput,
} from '../../src/access/model/sso-rules.js'
import { deriveKey } from '../../src/platform/kit/crypto.js'

const policy: SsoPolicy = {
  subId: 'sub_a',
  domains: ['example.com'],
  provisionUsers: false,
  defaultRole: 'clerk',
  requireVerifiedEmail: true,
}
const verified = { email: 'dana@example.com', email_verified: true }
const user = (over: Partial<{ userId: string; subId: string; status: 'active' | 'disabled' }> = {}) => ({
  userId: 'usr_1',
  subId: 'sub_a',
  status: 'active' as const,
  ...over,
})

describe('decideSsoUser', () => {
  it('signs in the user of the email in the subscription, recording the identity the first time', () => {
    expect(decideSsoUser(verified, policy, user())).toEqual({ kind: 'sign-in', userId: 'usr_1', record: true })
  })
  it('signs in a returning user by the identity recorded, whatever email the provider says now', () => {
    const linked = user({ userId: 'usr_linked' })
    for (const claims of [verified, { email: 'renamed@elsewhere.org' }, {}])
      expect(decideSsoUser(claims, policy, user(), linked)).toEqual({
        kind: 'sign-in',
        userId: 'usr_linked',
        record: false,
      })
    expect(decideSsoUser(verified, policy, undefined, user({ status: 'disabled' }))).toEqual({
      kind: 'refuse',
      reason: 'disabled',
    })
    expect(decideSsoUser(verified, policy, undefined, user({ subId: 'sub_b' }))).toEqual({
      kind: 'refuse',
      reason: 'other_subscription',
    })
  })
  it('refuses another identity with the email of a user recorded with a different one at this issuer', () => {
    expect(decideSsoUser(verified, { ...policy, provisionUsers: true }, { ...user(), subject: 'sub-1' })).toEqual({
      kind: 'refuse',
      reason: 'identity_mismatch',
    })
  })
  it('never matches a user of another subscription, even with provisioning on', () => {
    expect(decideSsoUser(verified, { ...policy, provisionUsers: true }, user({ subId: 'sub_b' }))).toEqual({
      kind: 'refuse',
      reason: 'other_subscription',
    })
  })
  it('keeps a disabled user out', () => {
    expect(decideSsoUser(verified, policy, user({ status: 'disabled' }))).toEqual({
      kind: 'refuse',
      reason: 'disabled',
    })
  })
  it('refuses an unknown email when provisioning is off', () => {
    expect(decideSsoUser(verified, policy, undefined)).toEqual({ kind: 'refuse', reason: 'unknown_user' })
  })
  it('provisions an unknown email of a claimed domain with the default role', () => {
    expect(decideSsoUser(verified, { ...policy, provisionUsers: true, defaultRole: 'admin' }, undefined)).toEqual({
      kind: 'provision',
      email: 'dana@example.com',
      role: 'admin',
    })
    // Domains compare in lower case.
    expect(
      decideSsoUser(
        { email: 'Dana@EXAMPLE.com.', email_verified: true },
        { ...policy, provisionUsers: true },
        undefined,
      ).kind,
    ).toBe('provision')
  })
  it('provisions no email of a domain the subscription does not claim', () => {
    const claims = { email: 'guest@elsewhere.org', email_verified: true }
    expect(decideSsoUser(claims, { ...policy, provisionUsers: true }, undefined)).toEqual({
      kind: 'refuse',
      reason: 'unknown_user',
    })
  })
  it('requires email_verified true unless the subscription says otherwise', () => {
    for (const email_verified of [false, undefined, 'true', 1, null])
      expect(decideSsoUser({ email: 'dana@example.com', email_verified }, policy, user())).toEqual({
        kind: 'refuse',
        reason: 'unverified_email',
      })
    expect(decideSsoUser({ email: 'dana@example.com' }, { ...policy, requireVerifiedEmail: false }, user()).kind).toBe(
      'sign-in',
    )
  })
  it('refuses a token without a usable email before anything else', () => {
    for (const email of [undefined, '', '  ', 42, 'no-at-sign', 'trailing@'])
      expect(decideSsoUser({ email, email_verified: true }, policy, user())).toEqual({
        kind: 'refuse',
        reason: 'no_email',
      })
  })
  it('answers one of the documented outcomes whatever the claims (property)', () => {
    fc.assert(
      fc.property(
        fc.record({ email: fc.anything(), email_verified: fc.anything() }),
        fc.boolean(),
        fc.boolean(),
        fc.option(
          fc.record({ subId: fc.constantFrom('sub_a', 'sub_b'), status: fc.constantFrom('active', 'disabled') }),
        ),
        (claims, provisionUsers, requireVerifiedEmail, found) => {
          const d = decideSsoUser(
            claims,
            { ...policy, provisionUsers, requireVerifiedEmail },
            found ? { userId: 'usr_1', subId: found.subId, status: found.status } : undefined,
          )
          if (d.kind === 'refuse') expect(SSO_REFUSALS).toContain(d.reason)
          // Nobody of another subscription, nobody disabled, nobody unverified when required ever gets in.
          if (d.kind === 'sign-in') {
            expect(found?.subId).toBe('sub_a')
            expect(found?.status).toBe('active')
          }
          if (d.kind !== 'refuse' && requireVerifiedEmail) expect(claims.email_verified).toBe(true)
          if (d.kind === 'provision') expect(provisionUsers && found === null).toBe(true)
        },
      ),
    )
  })
})

describe('passwordSignInAllowed', () => {
  it('lets every user in while passwords are on', () => {
    expect(passwordSignInAllowed(false, { role: 'clerk', passwordFromCli: false })).toBe(true)
  })
  it('keeps only the break-glass admin (password set with the CLI) when passwords are off', () => {
    expect(passwordSignInAllowed(true, { role: 'admin', passwordFromCli: true })).toBe(true)
    expect(passwordSignInAllowed(true, { role: 'admin', passwordFromCli: false })).toBe(false)
    expect(passwordSignInAllowed(true, { role: 'clerk', passwordFromCli: true })).toBe(false)
    expect(passwordSignInAllowed(true, { role: 'clerk', passwordFromCli: false })).toBe(false)
  })
})

const input = (over: Partial<SsoSettingsInput> = {}): SsoSettingsInput => ({
  enabled: true,
  issuer: 'https://login.example.com',
  clientId: 'mailroom',
  emailDomains: ['example.com'],
  provisionUsers: false,
  defaultRole: 'clerk',
  requireVerifiedEmail: true,
  passwordSignIn: true,
  ...over,
})
const fieldsOf = (i: SsoSettingsInput, allowHttp = false) => settingsProblems(i, { allowHttp }).map((p) => p.field)

describe('settingsProblems', () => {
  it('accepts complete settings, and disabled ones with nothing else', () => {
    expect(fieldsOf(input())).toEqual([])
    expect(
      fieldsOf({ ...input({ enabled: false, emailDomains: [] }), issuer: undefined, clientId: undefined }),
    ).toEqual([])
  })
  it('names each field an enabled configuration lacks', () => {
    expect(fieldsOf({ ...input({ emailDomains: [] }), issuer: undefined, clientId: undefined })).toEqual([
      'issuer',
      'clientId',
      'emailDomains',
    ])
  })
  it('takes an https issuer, http only where allowed, and nothing with a query, fragment or credentials', () => {
    expect(fieldsOf(input({ issuer: 'http://127.0.0.1:4000' }))).toEqual(['issuer'])
    expect(fieldsOf(input({ issuer: 'http://127.0.0.1:4000' }), true)).toEqual([])
    for (const issuer of [
      'not a url',
      'ftp://x.example',
      'https://x.example/?a=1',
      'https://x.example/#f',
      'https://u:p@x.example',
    ])
      expect(fieldsOf(input({ issuer }), true), issuer).toEqual(['issuer'])
    expect(fieldsOf(input({ issuer: 'https://login.example.com/realms/staff' }))).toEqual([])
  })
  it('refuses password sign-in off while single sign-on is off', () => {
    expect(fieldsOf(input({ enabled: false, passwordSignIn: false }))).toEqual(['passwordSignIn'])
    expect(fieldsOf(input({ passwordSignIn: false }))).toEqual([])
  })
})

describe('domains', () => {
  it('takes the domain after the last @, lower case, no trailing dot', () => {
    expect(emailDomainOf('Dana@Example.COM')).toBe('example.com')
    expect(emailDomainOf('"a@b"@example.com.')).toBe('example.com')
    expect(emailDomainOf('@example.com')).toBeUndefined()
    expect(emailDomainOf('dana@')).toBeUndefined()
    expect(emailDomainOf('dana')).toBeUndefined()
    expect(normalizeDomain(' Example.ORG. ')).toBe('example.org')
  })
  it('accepts host names and refuses the rest (the schema pattern)', () => {
    const re = new RegExp(DOMAIN_PATTERN)
    for (const ok of ['example.com', 'staff.example.co.uk', 'xn--bcher-kva.example', 'a-b.example.org'])
      expect(re.test(ok), ok).toBe(true)
    for (const bad of [
      'example',
      '-a.example.com',
      'a_b.example.com',
      'exa mple.com',
      '*.example.com',
      'dana@example.com',
      '127.0.0.1',
    ])
      expect(re.test(bad), bad).toBe(false)
  })
  it('masks a secret to its last four characters', () => {
    expect(maskSecret('abcdefgh1234')).toBe('****1234')
  })
})

describe('the flow cookie', () => {
  const key = deriveKey('k'.repeat(40), 'console-sso-flow')
  const flow: SsoFlow = { subId: 'sub_a', state: 's', nonce: 'n', codeVerifier: 'v', email: 'dana@example.com' }
  const now = Date.UTC(2026, 0, 1)
  it('opens what it sealed, within its time only', () => {
    const sealed = sealFlow(key, flow, now)
    expect(sealed).not.toContain('dana')
    expect(openFlow(key, sealed, now + 1000)).toEqual(flow)
    expect(openFlow(key, sealed, now + FLOW_SECONDS * 1000 - 1)).toEqual(flow)
    expect(openFlow(key, sealed, now + FLOW_SECONDS * 1000)).toBeUndefined()
  })
  it('opens nothing forged, changed, or sealed with another key', () => {
    const sealed = sealFlow(key, flow, now)
    const other = deriveKey('k'.repeat(40), 'another-purpose')
    expect(openFlow(other, sealed, now)).toBeUndefined()
    const parts = sealed.split('.')
    const flipped = parts[3]!.startsWith('A') ? `B${parts[3]!.slice(1)}` : `A${parts[3]!.slice(1)}`
    expect(openFlow(key, [...parts.slice(0, 3), flipped].join('.'), now)).toBeUndefined()
    for (const junk of [undefined, '', 'v1.a.b.c', 'x'.repeat(3000)]) expect(openFlow(key, junk, now)).toBeUndefined()
  })
})

describe('the console knows every refusal', () => {
  it('has a message for each code of SSO_REFUSALS', () => {
    const page = readFileSync('console/screens/signin.js', 'utf8')
    for (const code of SSO_REFUSALS) expect(page, code).toMatch(new RegExp(`\\n  ${code}:\\s+'`))
  })
})

describe('ssoEmailOf: the email a provider asserts, as a user’s email', () => {
  it('normalizes: trimmed, NFC, lower case, an internationalized domain in ASCII, no trailing dot', () => {
    expect(ssoEmailOf(' Dana@EXAMPLE.com. ')).toBe('dana@example.com')
    // "é" composed (NFC) whatever form the provider sent.
    expect(ssoEmailOf('dana@bu\u0308cher.example')).toBe('dana@xn--bcher-kva.example')
    expect(ssoEmailOf('dana@Bücher.example')).toBe('dana@xn--bcher-kva.example')
  })
  it('refuses what the users API would refuse (never stored, never a 500)', () => {
    for (const claim of [
      undefined,
      null,
      42,
      '',
      'dana',
      '@example.com',
      'dana@',
      'dana@localhost',
      'da na@example.com',
      'dana@exa_mple.com',
      `${'a'.repeat(250)}@example.com`,
      `${'a'.repeat(3000)}@example.com`,
      'dana@xn--a.example',
    ])
      expect(ssoEmailOf(claim), String(claim).slice(0, 40)).toBeUndefined()
  })
  it('makes an oversized email a no_email refusal', () => {
    expect(
      decideSsoUser(
        { email: `${'a'.repeat(3000)}@example.com`, email_verified: true },
        { ...policy, provisionUsers: true },
        undefined,
      ),
    ).toEqual({ kind: 'refuse', reason: 'no_email' })
  })
})
