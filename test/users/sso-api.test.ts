import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { parseSsoCommand, runSsoCommand } from '../../src/app/cli/sso.js'
import { parseUsersCommand, runUsersCommand } from '../../src/app/cli/users.js'
import { createUser, signIn } from '../support/console-session.js'
import { startTestProvider, type TestProvider } from '../support/oidc-provider.js'
import { useClient, useTestApp } from '../support/use-test-app.js'

const t = useTestApp({ MAILROOM_SSO_ALLOW_HTTP: 'true', MAILROOM_SSO_ALLOW_CIDRS: '127.0.0.0/8' })
const acme = useClient(t, 'sso-acme')
const other = useClient(t, 'sso-other')

let provider: TestProvider
beforeAll(async () => {
  provider = await startTestProvider(t.ctx.sso.redirectUri)
})
afterAll(async () => provider?.close())

/** What Chromium sends with the sign-in page's navigation to the start. */
const ownPage = { 'sec-fetch-site': 'same-origin' }
const fields = (body: { errors: Array<{ additionalParameters: string }> }) =>
  body.errors.map((e) => e.additionalParameters).sort()
const put = (headers: Record<string, string>, payload: unknown) =>
  t.inject({ method: 'PUT', url: '/api/v1/sso', headers, payload: payload as object })
const settings = (over: Record<string, unknown> = {}) => ({
  enabled: true,
  issuer: provider.issuer,
  clientId: provider.clientId,
  clientSecret: provider.clientSecret,
  emailDomains: ['Acme.Example', 'acme-staff.example'],
  ...over,
})

async function ssoCli(...args: string[]): Promise<string[]> {
  const lines: string[] = []
  await runSsoCommand(t.ctx, parseSsoCommand(args), (line) => lines.push(line))
  return lines
}

async function cli(...args: string[]): Promise<string[]> {
  const lines: string[] = []
  await runUsersCommand(t.ctx, parseUsersCommand(args), (line) => lines.push(line))
  return lines
}

describe('the single sign-on settings API', () => {
  it('answers the defaults, with the redirect URI to register, before anything is saved', async () => {
    const res = await t.inject({ url: '/api/v1/sso', headers: other.auth })
    expect(res.statusCode).toBe(200)
    expect(res.json()).toEqual({
      enabled: false,
      emailDomains: [],
      domainClaims: [],
      provisionUsers: false,
      defaultRole: 'clerk',
      requireVerifiedEmail: true,
      passwordSignIn: true,
      redirectUri: `${t.config.publicUrl}/console/api/sso/callback`,
    })
  })

  it('saves the settings, seals the secret at rest and shows it masked; the mask keeps it, null removes it', async () => {
    const res = await put(acme.auth, settings({ provisionUsers: true, defaultRole: 'admin' }))
    expect(res.statusCode, res.body).toBe(200)
    const saved = res.json()
    expect(saved).toEqual({
      enabled: true,
      issuer: provider.issuer,
      clientId: provider.clientId,
      clientSecret: `****${provider.clientSecret.slice(-4)}`,
      // Lower case, sorted.
      emailDomains: ['acme-staff.example', 'acme.example'],
      // Pending until the operator grants them.
      domainClaims: [
        { domain: 'acme-staff.example', status: 'pending' },
        { domain: 'acme.example', status: 'pending' },
      ],
      provisionUsers: true,
      defaultRole: 'admin',
      requireVerifiedEmail: true,
      passwordSignIn: true,
      redirectUri: t.ctx.sso.redirectUri,
      updatedAt: expect.any(String),
    })
    expect((await t.inject({ url: '/api/v1/sso', headers: acme.auth })).json()).toEqual(saved)
    const row = await t.ctx.db
      .selectFrom('sso_settings')
      .select('client_secret_sealed')
      .where('sub_id', '=', acme.subId)
      .executeTakeFirstOrThrow()
    expect(row.client_secret_sealed).toMatch(/^v1\./)
    expect(row.client_secret_sealed).not.toContain(provider.clientSecret)

    // What a read returns, a write accepts (read-only fields ignored): the mask keeps the stored secret.
    const kept = await put(acme.auth, { ...saved, redirectUri: 'https://ignored.example/' })
    expect(kept.statusCode, kept.body).toBe(200)
    expect(kept.json().clientSecret).toBe(saved.clientSecret)
    expect(kept.json().redirectUri).toBe(t.ctx.sso.redirectUri)
    const removed = await put(acme.auth, { ...saved, clientSecret: null })
    expect(removed.json().clientSecret).toBeUndefined()
    expect((await put(acme.auth, settings({ provisionUsers: true, defaultRole: 'admin' }))).statusCode).toBe(200)
  })

  it('refuses a kept secret for a new issuer, and a mask that is not the stored secret’s', async () => {
    const { clientSecret: _, ...noSecret } = settings()
    const moved = await put(acme.auth, { ...noSecret, issuer: 'http://127.0.0.1:1/elsewhere' })
    expect(moved.statusCode).toBe(400)
    expect(fields(moved.json())).toEqual(['clientSecret'])
    const wrongMask = await put(acme.auth, settings({ clientSecret: '****zzzz' }))
    expect(fields(wrongMask.json())).toEqual(['clientSecret'])
  })

  it('refuses bad settings with a 400 naming each field, and writes nothing', async () => {
    const before = (await t.inject({ url: '/api/v1/sso', headers: acme.auth })).json()
    const cases: Array<[unknown, string[]]> = [
      [{}, ['enabled']],
      [{ enabled: 'yes' }, ['enabled']],
      [{ enabled: true }, ['clientId', 'emailDomains', 'issuer']],
      [{ enabled: false, passwordSignIn: false }, ['passwordSignIn']],
      [settings({ emailDomains: ['not a domain'] }), ['emailDomains[0]']],
      [settings({ defaultRole: 'owner' }), ['defaultRole']],
      [settings({ issuer: 'ftp://login.example' }), ['issuer']],
      [settings({ issuer: 'https://login.example/?tenant=1' }), ['issuer']],
      [settings({ colour: 'blue' }), ['colour']],
      [settings({ emailDomains: Array.from({ length: 21 }, (_, i) => `d${i}.example`) }), ['emailDomains']],
    ]
    for (const [payload, expected] of cases) {
      const res = await put(acme.auth, payload)
      expect(res.statusCode, JSON.stringify(payload)).toBe(400)
      expect(fields(res.json()), JSON.stringify(payload)).toEqual(expected)
    }
    expect((await t.inject({ url: '/api/v1/sso', headers: acme.auth })).json()).toEqual(before)
  })

  it('makes a claim active only once the operator grants it, and never tells one subscription another’s claims', async () => {
    await put(acme.auth, settings())
    const start = () => t.inject({ url: '/console/api/sso/start?email=dana%40acme.example', headers: ownPage })
    // Claimed, not granted: single sign-on does not start for it.
    expect((await start()).headers.location).toBe('/console/?sso_error=not_configured')
    expect(await ssoCli('grant', 'acme.example', acme.subId)).toEqual([
      `acme.example granted to ${acme.subId}: its single sign-on starts for this domain`,
    ])
    expect(String((await start()).headers.location)).toMatch(new RegExp(`^${provider.issuer}/auth`))
    expect((await t.inject({ url: '/api/v1/sso', headers: acme.auth })).json().domainClaims).toEqual([
      { domain: 'acme-staff.example', status: 'pending' },
      { domain: 'acme.example', status: 'active' },
    ])

    // Another subscription claiming it gets the answer of any new claim: pending, nothing disclosed.
    const claimed = await put(other.auth, settings({ emailDomains: ['other.example', 'ACME.example'] }))
    expect(claimed.statusCode, claimed.body).toBe(200)
    expect(claimed.json().domainClaims).toEqual([
      { domain: 'acme.example', status: 'pending' },
      { domain: 'other.example', status: 'pending' },
    ])
    // And it takes nothing: the sign-in page still finds acme.
    expect(String((await start()).headers.location)).toMatch(new RegExp(`^${provider.issuer}/auth`))
    await expect(ssoCli('grant', 'acme.example', other.subId)).rejects.toThrow(/granted to another subscription/)
    await expect(ssoCli('grant', 'nobody.example', other.subId)).rejects.toThrow(/does not claim/)
    expect(await ssoCli('domains')).toEqual([
      `acme-staff.example\t${acme.subId}\tpending`,
      `acme.example\t${acme.subId}\tactive`,
      `acme.example\t${other.subId}\tpending`,
      `other.example\t${other.subId}\tpending`,
    ])
    // Revoked: pending again, and nobody's.
    expect(await ssoCli('revoke', 'acme.example')).toEqual(['acme.example: grant revoked (pending again)'])
    expect((await start()).headers.location).toBe('/console/?sso_error=not_configured')
    await ssoCli('grant', 'acme.example', acme.subId)

    // Each reads only its own settings.
    expect((await t.inject({ url: '/api/v1/sso', headers: acme.auth })).json()).toMatchObject({
      emailDomains: ['acme-staff.example', 'acme.example'],
      clientSecret: `****${provider.clientSecret.slice(-4)}`,
    })
    expect((await put(other.auth, { enabled: false })).statusCode).toBe(200)
  })

  it('is for admins: a clerk’s session gets 403, no credentials 401', async () => {
    await createUser(t, acme, { email: 'sso-desk@acme.example', role: 'clerk' })
    const clerk = await signIn(t, 'sso-desk@acme.example')
    expect((await t.inject({ url: '/api/v1/sso', cookies: clerk.cookies })).statusCode).toBe(403)
    expect(
      (await t.inject({ method: 'PUT', url: '/api/v1/sso', ...clerk.write, payload: settings() })).statusCode,
    ).toBe(403)
    expect((await t.inject({ url: '/api/v1/sso' })).statusCode).toBe(401)
  })
})

describe('password sign-in turned off', () => {
  it('refuses the subscription’s users their password, but the break-glass admin of the CLI; on again, all sign in', async () => {
    await createUser(t, acme, { email: 'pw-clerk@acme.example', role: 'clerk' })
    await createUser(t, acme, { email: 'pw-admin@acme.example', role: 'admin' })
    const created = (
      await cli(
        'create',
        '--subscription',
        'sso-acme',
        '--email',
        'glass@acme.example',
        '--role',
        'admin',
        '--password',
        'break the glass now',
      )
    ).join('\n')
    const glassId = /userId:\s+(\S+)/.exec(created)![1]!
    // Another subscription's users are not concerned.
    await createUser(t, other, { email: 'pw-other@other.example', role: 'clerk' })

    expect((await put(acme.auth, settings({ passwordSignIn: false }))).statusCode).toBe(200)
    for (const email of ['pw-clerk@acme.example', 'pw-admin@acme.example']) {
      const res = await t.inject({
        method: 'POST',
        url: '/console/api/session',
        payload: { email, password: 'correct horse battery' },
      })
      // The very answer of a wrong password: the right one is not told apart (no password oracle).
      const wrong = await t.inject({
        method: 'POST',
        url: '/console/api/session',
        payload: { email, password: 'not the password' },
      })
      expect(wrong.statusCode).toBe(401)
      expect(res.statusCode, email).toBe(401)
      expect(res.json()).toEqual(wrong.json())
      expect(res.cookies).toEqual([])
    }
    // Counted as failures: with the limit reached, even the right password is throttled (429).
    let last = 0
    for (let i = 0; i < 10 && last !== 429; i++)
      last = (
        await t.inject({
          method: 'POST',
          url: '/console/api/session',
          payload: { email: 'pw-clerk@acme.example', password: 'correct horse battery' },
        })
      ).statusCode
    expect(last).toBe(429)
    // The sign-in page learns it from the domain's settings instead.
    const options = (email: string) =>
      t.inject({ url: `/console/api/sso/options?email=${encodeURIComponent(email)}` }).then((r) => r.json())
    expect(await options('anyone@acme.example')).toEqual({ singleSignOn: true, passwordSignIn: false })
    expect(await options('anyone@other.example')).toEqual({ singleSignOn: false, passwordSignIn: true })
    await signIn(t, 'glass@acme.example', 'break the glass now')
    await signIn(t, 'pw-other@other.example')

    // An admin's reset through the API is no break-glass password; the CLI's is.
    const admins = (await t.inject({ url: '/api/v1/users', headers: acme.auth })).json().users as Array<{
      userId: string
      email: string
    }>
    const pwAdmin = admins.find((u) => u.email === 'pw-admin@acme.example')!
    const resetGlass = () =>
      t.inject({
        method: 'POST',
        url: `/api/v1/users/${glassId}/password`,
        headers: acme.auth,
        payload: { password: 'reset by an admin' },
      })
    // The last break-glass admin is kept while passwords are off: no demotion, disabling or API reset.
    const patchGlass = (payload: object) =>
      t.inject({ method: 'PATCH', url: `/api/v1/users/${glassId}`, headers: acme.auth, payload })
    for (const [res, field] of [
      [await resetGlass(), 'password'],
      [await patchGlass({ role: 'clerk' }), 'role'],
      [await patchGlass({ disabled: true }), 'disabled'],
    ] as const) {
      expect(res.statusCode, field).toBe(400)
      expect(fields(res.json())).toEqual([field])
      expect(res.json().errors[0].errorDescription).toMatch(/break-glass/)
    }
    await signIn(t, 'glass@acme.example', 'break the glass now')
    // With another one made on the server, the first is no longer the last.
    await cli('password', pwAdmin.userId, '--password', 'set on the server')
    await signIn(t, 'pw-admin@acme.example', 'set on the server')
    expect((await resetGlass()).statusCode).toBe(200)
    const reset = await t.inject({
      method: 'POST',
      url: '/console/api/session',
      payload: { email: 'glass@acme.example', password: 'reset by an admin' },
    })
    expect(reset.statusCode).toBe(401)

    expect((await put(acme.auth, settings({ passwordSignIn: true }))).statusCode).toBe(200)
    await signIn(t, 'pw-admin@acme.example', 'set on the server')

    // Demoted through the API, the break-glass admin is one no more, nor again once promoted back.
    const role = (role: string) =>
      t.inject({ method: 'PATCH', url: `/api/v1/users/${pwAdmin.userId}`, headers: acme.auth, payload: { role } })
    expect((await role('clerk')).statusCode).toBe(200)
    expect((await role('admin')).statusCode).toBe(200)
    const off = await put(acme.auth, settings({ passwordSignIn: false }))
    expect(off.statusCode).toBe(400)
    expect(fields(off.json())).toEqual(['passwordSignIn'])
    expect(off.json().errors[0].errorDescription).toMatch(/break-glass/)
  })

  it('refuses to turn passwords off while no admin could still use one (400 naming passwordSignIn)', async () => {
    const lone = await t.newClient('sso-no-glass')
    await createUser(t, lone, { email: 'api-admin@noglass.example', role: 'admin' })
    const res = await put(lone.auth, settings({ emailDomains: ['noglass.example'], passwordSignIn: false }))
    expect(res.statusCode).toBe(400)
    expect(fields(res.json())).toEqual(['passwordSignIn'])
    // Nothing was saved.
    expect((await t.inject({ url: '/api/v1/sso', headers: lone.auth })).json().enabled).toBe(false)
    // With one (made on the server), it is allowed.
    await cli('create', '--subscription', 'sso-no-glass', '--email', 'glass@noglass.example', '--role', 'admin')
    expect(
      (await put(lone.auth, settings({ emailDomains: ['noglass.example'], passwordSignIn: false }))).statusCode,
    ).toBe(200)
  })
})

describe('the single sign-on door', () => {
  it('refuses a start that does not come from the console’s own page (login CSRF), setting no flow cookie', async () => {
    await put(acme.auth, settings())
    const own = new URL(t.config.publicUrl).origin
    const url = '/console/api/sso/start?email=dana%40acme.example'
    const refused: Array<Record<string, string>> = [
      {},
      { 'sec-fetch-site': 'cross-site' },
      { 'sec-fetch-site': 'same-site' },
      { 'sec-fetch-site': 'none' },
      // Sec-Fetch-Site wins over an Origin or Referer that would pass.
      { 'sec-fetch-site': 'cross-site', referer: `${own}/console/` },
      { origin: 'https://attacker.example' },
      { origin: 'null' },
      { referer: 'https://attacker.example/console/' },
      { referer: 'not a url' },
    ]
    for (const headers of refused) {
      const res = await t.inject({ url, headers })
      expect(res.statusCode, JSON.stringify(headers)).toBe(303)
      expect(res.headers.location, JSON.stringify(headers)).toBe('/console/?sso_error=cross_site')
      expect(res.cookies, JSON.stringify(headers)).toEqual([])
    }
    for (const headers of [ownPage, { origin: own }, { referer: `${own}/console/` }]) {
      const res = await t.inject({ url, headers })
      expect(String(res.headers.location), JSON.stringify(headers)).toMatch(new RegExp(`^${provider.issuer}/auth`))
    }
  })

  it('sends an unknown domain back to the sign-in page, saying so', async () => {
    const res = await t.inject({ url: '/console/api/sso/start?email=someone%40nowhere.example', headers: ownPage })
    expect(res.statusCode).toBe(303)
    expect(res.headers.location).toBe('/console/?sso_error=not_configured')
  })

  it('sends a claimed domain to its provider: code flow, PKCE S256, state, nonce, the exact redirect URI; the flow in a sealed Lax cookie', async () => {
    await put(acme.auth, settings())
    const res = await t.inject({ url: '/console/api/sso/start?email=Dana%40ACME.example', headers: ownPage })
    expect(res.statusCode, res.body).toBe(303)
    const to = new URL(String(res.headers.location))
    expect(`${to.origin}${to.pathname}`).toBe(`${provider.issuer}/auth`)
    const q = Object.fromEntries(to.searchParams)
    expect(q).toMatchObject({
      response_type: 'code',
      client_id: provider.clientId,
      redirect_uri: t.ctx.sso.redirectUri,
      scope: 'openid email profile',
      code_challenge_method: 'S256',
      login_hint: 'Dana@ACME.example',
    })
    expect(q.code_challenge).toMatch(/^[A-Za-z0-9_-]{43}$/)
    expect(q.state).toMatch(/^[A-Za-z0-9_-]{20,}$/)
    expect(q.nonce).toMatch(/^[A-Za-z0-9_-]{20,}$/)
    const flow = res.cookies.find((c) => c.name === 'mailroom_sso')!
    expect(flow).toMatchObject({ httpOnly: true, sameSite: 'Lax', path: '/console/api/sso', maxAge: 600 })
    // Neither the verifier nor the state can be read from it.
    expect(flow.value).not.toContain(q.state)

    // A callback with another state than the flow's signs no one in.
    const forged = await t.inject({
      url: `/console/api/sso/callback?code=x&state=not-the-state&iss=${encodeURIComponent(provider.issuer)}`,
      cookies: { mailroom_sso: flow.value },
    })
    expect(forged.statusCode).toBe(303)
    expect(forged.headers.location).toBe('/console/?sso_error=failed')
    expect(forged.cookies.find((c) => c.name === 'mailroom_session')).toBeUndefined()
  })

  it('says the sign-in failed when the provider cannot be reached (the log says why)', async () => {
    expect((await put(acme.auth, settings({ issuer: 'http://127.0.0.1:1' }))).statusCode).toBe(200)
    const res = await t.inject({ url: '/console/api/sso/start?email=dana%40acme.example', headers: ownPage })
    expect(res.statusCode).toBe(303)
    expect(res.headers.location).toBe('/console/?sso_error=failed')
    expect(res.cookies.find((c) => c.name === 'mailroom_sso')).toBeUndefined()
    expect((await put(acme.auth, settings())).statusCode).toBe(200)
  })

  it('refuses a callback without this browser’s flow cookie, or once single sign-on is off', async () => {
    const res = await t.inject({ url: `/console/api/sso/callback?code=x&state=y` })
    expect(res.headers.location).toBe('/console/?sso_error=expired')
    const started = await t.inject({ url: '/console/api/sso/start?email=dana%40acme.example', headers: ownPage })
    const flow = started.cookies.find((c) => c.name === 'mailroom_sso')!
    // Turned off, the issuer and client cleared: the stored secret may stay (it goes nowhere).
    expect((await put(acme.auth, { enabled: false })).statusCode).toBe(200)
    const late = await t.inject({
      url: '/console/api/sso/callback?code=x&state=y',
      cookies: { mailroom_sso: flow.value },
    })
    expect(late.headers.location).toBe('/console/?sso_error=not_configured')
    // Past its ten minutes, a flow is over.
    await put(acme.auth, settings())
    t.clock.advance(600_000)
    const expired = await t.inject({
      url: '/console/api/sso/callback?code=x&state=y',
      cookies: { mailroom_sso: flow.value },
    })
    expect(expired.headers.location).toBe('/console/?sso_error=expired')
  })
})

describe('without MAILROOM_SSO_ALLOW_HTTP', () => {
  const strict = useTestApp()
  const admin = useClient(strict, 'sso-strict')

  it('refuses an http:// issuer with a 400 naming issuer', async () => {
    const res = await strict.inject({
      method: 'PUT',
      url: '/api/v1/sso',
      headers: admin.auth,
      payload: settings({ emailDomains: ['strict.example'] }),
    })
    expect(res.statusCode, res.body).toBe(400)
    expect(fields(res.json())).toEqual(['issuer'])
  })
})
