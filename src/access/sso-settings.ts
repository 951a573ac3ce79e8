import type { Db } from '../platform/db/database.js'
import { inTransaction } from '../platform/db/transaction.js'
import type { Clock } from '../platform/kit/clock.js'
import { open, seal } from '../platform/kit/crypto.js'
import { invalid, ValidationErrors } from '../platform/kit/errors.js'
import type { SsoSettings, SsoSettingsBody } from './api/sso-schemas.js'
import { maskSecret, normalizeDomain, settingsProblems } from './model/sso-rules.js'
import * as repo from './store/sso.js'

export interface SsoSettingsDeps {
  db: Db
  clock: Clock
  /** Seals client secrets at rest (derived from the master secret for this purpose alone). */
  secretKey: Buffer
  /** What the provider must have registered, shown in every answer. */
  redirectUri: string
  /** MAILROOM_SSO_ALLOW_HTTP: an http:// issuer is accepted (development, tests). */
  allowHttp: boolean
}

// Bound to its subscription: a sealed secret copied into another row does not open.
const secretAad = (subId: string) => `mailroom:sso-client-secret:${subId}`

/** The client secret of stored settings, in the clear (for the provider only); undefined for a public client. */
export const openSecret = (key: Buffer, s: repo.SsoSettingsRecord): string | undefined =>
  s.client_secret_sealed ? open(key, s.client_secret_sealed, secretAad(s.sub_id)) : undefined

/** The subscription's single sign-on settings (admin API): read with the secret masked, replaced whole. */
export function createSsoSettings(deps: SsoSettingsDeps) {
  const { db, clock, redirectUri } = deps

  function answerOf(s: repo.SsoSettingsRecord | undefined): SsoSettings {
    const secret = s ? openSecret(deps.secretKey, s) : undefined
    return {
      enabled: s?.enabled ?? false,
      ...(s?.issuer ? { issuer: s.issuer } : {}),
      ...(s?.client_id ? { clientId: s.client_id } : {}),
      ...(secret !== undefined ? { clientSecret: maskSecret(secret) } : {}),
      emailDomains: s?.domains ?? [],
      domainClaims: (s?.claims ?? []).map((c) => ({ domain: c.domain, status: c.granted ? 'active' : 'pending' })),
      provisionUsers: s?.provision_users ?? false,
      defaultRole: s?.default_role ?? 'clerk',
      requireVerifiedEmail: s?.require_verified_email ?? true,
      passwordSignIn: s?.password_sign_in ?? true,
      redirectUri,
      ...(s ? { updatedAt: s.updated_at.toISOString() } : {}),
    }
  }

  /**
   * The sealed secret to store: the stored one when none or its mask is sent (what a read returns, a
   * write accepts), none for null, else the new one sealed. A new issuer needs the secret itself:
   * otherwise whoever holds an admin session could send the stored secret to a server of their own.
   */
  function secretToStore(subId: string, body: SsoSettingsBody, current: repo.SsoSettingsRecord | undefined) {
    const stored = current?.client_secret_sealed ?? null
    if (body.clientSecret === null) return null
    const storedPlain = stored ? open(deps.secretKey, stored, secretAad(subId)) : undefined
    const keeps =
      body.clientSecret === undefined || (storedPlain !== undefined && body.clientSecret === maskSecret(storedPlain))
    if (!keeps) {
      if (body.clientSecret!.startsWith('****'))
        throw invalid('clientSecret', 'clientSecret is a mask that is not the stored secret’s: send the secret itself')
      return seal(deps.secretKey, body.clientSecret!, secretAad(subId))
    }
    if (stored && current && body.issuer !== undefined && body.issuer !== current.issuer)
      throw invalid('clientSecret', 'a new issuer needs the client secret itself, not the stored one')
    return stored
  }

  return {
    getSettings: async (subId: string): Promise<SsoSettings> => answerOf(await repo.findSettings(db, subId)),

    /** Replaces the subscription's settings; each problem names its field. New domains are pending until granted. */
    putSettings: async (subId: string, body: SsoSettingsBody): Promise<SsoSettings> => {
      const domains = [...new Set((body.emailDomains ?? []).map(normalizeDomain))].sort()
      const input = {
        enabled: body.enabled,
        issuer: body.issuer?.trim() || undefined,
        clientId: body.clientId?.trim() || undefined,
        emailDomains: domains,
        provisionUsers: body.provisionUsers ?? false,
        defaultRole: body.defaultRole ?? 'clerk',
        requireVerifiedEmail: body.requireVerifiedEmail ?? true,
        passwordSignIn: body.passwordSignIn ?? true,
      }
      const problems = settingsProblems(input, { allowHttp: deps.allowHttp })
      // Passwords off with nobody left who may use one would leave a broken provider unfixable.
      if (!input.passwordSignIn && !problems.some((p) => p.field === 'passwordSignIn'))
        if (!(await repo.hasBreakGlassAdmin(db, subId)))
          problems.push({
            field: 'passwordSignIn',
            description:
              'password sign-in can be turned off only while the subscription has an active admin whose password was set on the server (mailroom users create|password): the break-glass door',
          })
      if (problems.length > 0) throw new ValidationErrors(problems)
      // No 409 for a domain another subscription claims: claims are pending until the operator
      // grants one (docs/sso.md), and a refusal would tell one tenant another's domains.
      await inTransaction(db, async (trx) => {
        const current = await repo.findSettings(trx, subId)
        const now = clock.now()
        await repo.saveSettings(
          trx,
          {
            sub_id: subId,
            enabled: input.enabled,
            issuer: input.issuer ?? null,
            client_id: input.clientId ?? null,
            client_secret_sealed: secretToStore(subId, { ...body, issuer: input.issuer }, current),
            provision_users: input.provisionUsers,
            default_role: input.defaultRole,
            require_verified_email: input.requireVerifiedEmail,
            password_sign_in: input.passwordSignIn,
            created_at: current?.created_at ?? now,
            updated_at: now,
          },
          domains,
        )
      })
      return answerOf(await repo.findSettings(db, subId))
    },
  }
}
