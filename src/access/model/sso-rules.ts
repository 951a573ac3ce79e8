import { domainToASCII } from 'node:url'
import { fullFormats } from 'ajv-formats/dist/formats.js'
import type { Role } from '../store/user-tables.js'

/**
 * Why a single sign-on was refused: the code the callback puts in the console's address
 * (`/console/?sso_error=CODE`), where the sign-in page says what it means. Codes are API: never renamed.
 */
export const SSO_REFUSALS = [
  /** No subscription claims the email's domain, or its single sign-on is off. */
  'not_configured',
  /** The flow cookie is missing, expired or not this browser's (a stale tab, a replayed callback). */
  'expired',
  /** The identity provider refused, or its answer failed a check (state, PKCE, id_token). */
  'failed',
  /** The id_token carries no email. */
  'no_email',
  /** The provider does not say the email is verified, and the subscription requires it. */
  'unverified_email',
  /** No user has this email and provisioning is off (or the domain is not the subscription's). */
  'unknown_user',
  /** The email is a user of another subscription. */
  'other_subscription',
  /** The user is disabled. */
  'disabled',
  /**
   * The email is a user who signs in at this provider as someone else (another `sub`): a new
   * account at the provider with a reused or changed email does not take over theirs.
   */
  'identity_mismatch',
  /**
   * The start did not come from the console's own page (another site's link or form): refused, or
   * any site could sign a visitor into an organisation of its choosing, ending their own session.
   */
  'cross_site',
] as const
export type SsoRefusal = (typeof SSO_REFUSALS)[number]

/** A hostname as the domain part of an email: lower case, at least two labels, no trailing dot. */
export const DOMAIN_PATTERN = '^(?=.{1,253}$)([a-zA-Z0-9]([a-zA-Z0-9-]{0,61}[a-zA-Z0-9])?\\.)+[a-zA-Z]{2,63}\\.?$'

export const normalizeDomain = (domain: string) => domain.trim().toLowerCase().replace(/\.$/, '')

/** The domain of an email address (after its last @), normalized; undefined when there is none. */
export function emailDomainOf(email: string): string | undefined {
  const at = email.lastIndexOf('@')
  if (at < 1 || at === email.length - 1) return undefined
  return normalizeDomain(email.slice(at + 1))
}

/** The users API's Email rule (user-schemas.ts): ajv's `email` format, 3 to 254 characters. */
const EMAIL_FORMAT = fullFormats.email as RegExp
const EMAIL_MAX = 254

/**
 * The email a provider asserts, as a user's email: NFC, lower case, an internationalized domain in
 * its ASCII (punycode) form, and then the users API's rule; undefined when it is none. What is not
 * an email is refused (`no_email`) rather than stored: a provider's claim is input like any other.
 */
export function ssoEmailOf(claim: unknown): string | undefined {
  if (typeof claim !== 'string' || claim.length > 4 * EMAIL_MAX) return undefined
  const email = claim.trim().normalize('NFC').toLowerCase()
  const at = email.lastIndexOf('@')
  if (at < 1) return undefined
  const domain = domainToASCII(normalizeDomain(email.slice(at + 1)))
  if (domain === '') return undefined
  const normalized = `${email.slice(0, at)}@${domain}`
  if (normalized.length < 3 || normalized.length > EMAIL_MAX || !EMAIL_FORMAT.test(normalized)) return undefined
  return normalized
}

/** The settings the admin API takes, after defaults (the schema's). */
export interface SsoSettingsInput {
  enabled: boolean
  issuer?: string
  clientId?: string
  emailDomains: string[]
  provisionUsers: boolean
  defaultRole: Role
  requireVerifiedEmail: boolean
  passwordSignIn: boolean
}

/**
 * The rules across fields the schema cannot say; each problem names its field. Password sign-in may
 * be off only while single sign-on is on (else nobody but the break-glass admin could sign in).
 */
export function settingsProblems(
  input: SsoSettingsInput,
  opts: { allowHttp: boolean },
): Array<{ field: string; description: string }> {
  const problems: Array<{ field: string; description: string }> = []
  if (input.issuer !== undefined) {
    let url: URL | undefined
    try {
      url = new URL(input.issuer)
    } catch {
      problems.push({ field: 'issuer', description: 'issuer must be an absolute URL' })
    }
    if (url) {
      const schemes = opts.allowHttp ? ['https:', 'http:'] : ['https:']
      if (!schemes.includes(url.protocol))
        problems.push({
          field: 'issuer',
          description: opts.allowHttp
            ? 'issuer must be an https:// or http:// URL'
            : 'issuer must be an https:// URL (http:// only where MAILROOM_SSO_ALLOW_HTTP is set)',
        })
      else if (url.search !== '' || url.hash !== '' || url.username !== '' || url.password !== '')
        problems.push({ field: 'issuer', description: 'issuer must have no query, fragment or credentials' })
    }
  }
  if (input.enabled) {
    if (input.issuer === undefined)
      problems.push({ field: 'issuer', description: 'issuer is required while single sign-on is enabled' })
    if (input.clientId === undefined)
      problems.push({ field: 'clientId', description: 'clientId is required while single sign-on is enabled' })
    if (input.emailDomains.length === 0)
      problems.push({
        field: 'emailDomains',
        description:
          'at least one email domain is required while single sign-on is enabled (the sign-in page finds the subscription by it)',
      })
  }
  if (!input.passwordSignIn && !input.enabled)
    problems.push({
      field: 'passwordSignIn',
      description: 'password sign-in can be turned off only while single sign-on is enabled',
    })
  return problems
}

/** The claims of a validated id_token that decide who signs in. */
export interface SsoClaims {
  email?: unknown
  email_verified?: unknown
}

export interface SsoPolicy {
  subId: string
  domains: readonly string[]
  provisionUsers: boolean
  defaultRole: Role
  requireVerifiedEmail: boolean
}

interface KnownUser {
  userId: string
  subId: string
  status: 'active' | 'disabled'
}

export type SsoDecision =
  /** `record`: the provider's identity is recorded for the user (their first sign-in through it). */
  | { kind: 'sign-in'; userId: string; record: boolean }
  | { kind: 'provision'; email: string; role: Role }
  | { kind: 'refuse'; reason: SsoRefusal }

/**
 * Who a validated id_token signs in (docs/sso.md, "Who signs in"). A returning user is the one the
 * token's (iss, sub) was recorded for at their first sign-in (`linked`), whatever email the provider
 * says today: an email changed at the provider does not move the account. Otherwise, the first time:
 * the user of its email in this subscription (`byEmail`), unless that user is recorded with another
 * subject at this issuer (`byEmail.subject`): a different account at the provider with the same email
 * does not take theirs over. Or, when provisioning is on and the email's domain is one the subscription
 * claims, a new user with the default role. A user of another subscription is never signed in (one
 * identity provider must not sign in another tenant's staff), an unverified email is refused unless
 * the subscription says otherwise, and a disabled user stays out.
 */
export function decideSsoUser(
  claims: SsoClaims,
  policy: SsoPolicy,
  byEmail: (KnownUser & { subject?: string }) | undefined,
  linked?: KnownUser,
): SsoDecision {
  const admits = (u: KnownUser): SsoRefusal | undefined =>
    u.subId !== policy.subId ? 'other_subscription' : u.status !== 'active' ? 'disabled' : undefined
  if (linked) {
    const no = admits(linked)
    return no ? { kind: 'refuse', reason: no } : { kind: 'sign-in', userId: linked.userId, record: false }
  }
  const email = ssoEmailOf(claims.email)
  if (email === undefined) return { kind: 'refuse', reason: 'no_email' }
  if (policy.requireVerifiedEmail && claims.email_verified !== true)
    return { kind: 'refuse', reason: 'unverified_email' }
  if (byEmail) {
    const no = admits(byEmail)
    if (no) return { kind: 'refuse', reason: no }
    if (byEmail.subject !== undefined) return { kind: 'refuse', reason: 'identity_mismatch' }
    return { kind: 'sign-in', userId: byEmail.userId, record: true }
  }
  if (!policy.provisionUsers || !policy.domains.includes(emailDomainOf(email)!))
    return { kind: 'refuse', reason: 'unknown_user' }
  return { kind: 'provision', email, role: policy.defaultRole }
}

/**
 * Whether a correct password signs this user in: always, unless the subscription turned password
 * sign-in off; then only an admin whose password was set with the CLI on the server (break-glass).
 */
export function passwordSignInAllowed(passwordOff: boolean, user: { role: Role; passwordFromCli: boolean }): boolean {
  return !passwordOff || (user.role === 'admin' && user.passwordFromCli)
}

/** The secret as answers show it: its last four characters (a client sends the mask back to keep it). */
export const maskSecret = (secret: string) => `****${secret.slice(-4)}`
