import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { Type } from '@sinclair/typebox'
import type { FastifyReply, FastifyRequest } from 'fastify'
import { FLOW_SECONDS } from '../model/sso-flow.js'
import { SSO_REFUSALS, type SsoRefusal } from '../model/sso-rules.js'
import { sessionCookieOf, setSessionCookie } from '../model/session-cookie.js'
import type { SsoService } from '../sso-service.js'
import { SsoCallbackQuery, SsoStartQuery } from './sso-schemas.js'

const tags = ['console']
const FLOW_COOKIE = 'mailroom_sso'
const FLOW_PATH = '/console/api/sso'
const CONSOLE_HOME = '/console/'

const overHttps = (request: FastifyRequest, publicUrl: string) =>
  publicUrl.startsWith('https:') || request.protocol === 'https'
// `__Secure-` over HTTPS (the browser keeps it only when Secure); `__Host-` would need Path=/.
const flowCookieName = (request: FastifyRequest, publicUrl: string) =>
  overHttps(request, publicUrl) ? `__Secure-${FLOW_COOKIE}` : FLOW_COOKIE
/**
 * SameSite=Lax, not Strict: the callback is a top-level GET navigation coming from the provider's
 * site, and a Strict cookie would not be sent with it. Scoped to the two routes, HttpOnly, short-lived.
 */
const flowOptions = (request: FastifyRequest, publicUrl: string) => ({
  httpOnly: true,
  sameSite: 'lax' as const,
  path: FLOW_PATH,
  secure: overHttps(request, publicUrl),
})

/**
 * Whether a start comes from the console's own page: `Sec-Fetch-Site: same-origin` (every current
 * browser sends it), else an `Origin` or `Referer` of the public URL. Anything else (another site's
 * link, a typed address, no header at all) is refused: a start signs the browser in at the callback.
 */
function fromOwnPage(request: FastifyRequest, publicUrl: string): boolean {
  const site = request.headers['sec-fetch-site']
  if (site !== undefined) return site === 'same-origin'
  const own = new URL(publicUrl).origin
  const origin = request.headers.origin
  if (origin !== undefined) return origin === own
  const referer = request.headers.referer
  if (referer === undefined) return false
  try {
    return new URL(referer).origin === own
  } catch {
    return false
  }
}

/** Back to the console's sign-in page, which says what the code means (console/screens/signin.js). */
const refuse = (reply: FastifyReply, reason: SsoRefusal) =>
  reply.header('cache-control', 'no-store').redirect(`${CONSOLE_HOME}?sso_error=${reason}`, 303)

const REFUSALS = `Refusals go back to \`${CONSOLE_HOME}?sso_error=CODE\`, CODE one of ${SSO_REFUSALS.map((c) => `\`${c}\``).join(', ')} (docs/sso.md says what each means).`

/**
 * The console's single sign-on (issue 28.5): browser navigations, not API calls. `start` finds the
 * subscription by the email's domain and sends the browser to its provider; `callback` is where the
 * provider sends it back, and signs it in (the session cookie of POST /console/api/session).
 */
export const ssoConsoleRoutes: FastifyPluginAsyncTypebox<{ sso: SsoService; publicUrl: string }> = async (
  app,
  { sso, publicUrl },
) => {
  app.get(
    '/sso/start',
    {
      schema: {
        tags,
        summary: 'Start a single sign-on (browser navigation)',
        description: [
          'The sign-in page’s “Use single sign-on”, from the console’s own page only (`Sec-Fetch-Site: same-origin`, or an `Origin`/`Referer` of MAILROOM_PUBLIC_URL; else `cross_site`): the subscription is the one claiming the domain of `email` (PUT /api/v1/sso). 303 to the provider’s authorization endpoint (code flow, PKCE S256, state, nonce, `login_hint`), with the flow cookie (`mailroom_sso`, `__Secure-mailroom_sso` over HTTPS: sealed, HttpOnly, SameSite=Lax, Path=/console/api/sso, 10 minutes).',
          REFUSALS,
        ].join('\n\n'),
        querystring: SsoStartQuery,
        response: {
          303: Type.Null({ description: 'To the provider, or back to the sign-in page with `sso_error`.' }),
          400: Type.Ref('ErrorBody', { description: 'No `email`, or a malformed one.' }),
        },
      },
    },
    async (request, reply) => {
      if (!fromOwnPage(request, publicUrl)) return refuse(reply, 'cross_site')
      const started = await sso.start(request.query.email)
      if (started.outcome === 'refused') return refuse(reply, started.reason)
      reply.setCookie(flowCookieName(request, publicUrl), started.flowCookie, {
        ...flowOptions(request, publicUrl),
        maxAge: FLOW_SECONDS,
      })
      return reply.header('cache-control', 'no-store').redirect(started.url, 303)
    },
  )

  app.get(
    '/sso/options',
    {
      schema: {
        tags,
        summary: 'Whether an email’s organisation signs in with single sign-on',
        description:
          'What the sign-in page says after a refused password: `singleSignOn` when the subscription claiming the domain of `email` has single sign-on on, `passwordSignIn: false` when it turned passwords off (POST /console/api/session answers those the 401 of a wrong password, so the right password is never told apart). Nothing about users: only the domain’s settings, which “Use single sign-on” shows anyway.',
        querystring: SsoStartQuery,
        response: {
          200: Type.Object({ singleSignOn: Type.Boolean(), passwordSignIn: Type.Boolean() }),
          400: Type.Ref('ErrorBody', { description: 'No `email`, or a malformed one.' }),
        },
      },
    },
    async (request, reply) => reply.header('cache-control', 'no-store').send(await sso.optionsFor(request.query.email)),
  )

  app.get(
    '/sso/callback',
    {
      schema: {
        tags,
        summary: 'The provider’s redirect back (browser navigation)',
        description: [
          'The redirect URI to register with the provider, exactly: MAILROOM_PUBLIC_URL + /console/api/sso/callback. Needs the flow cookie of the same browser. The code is exchanged and the id_token validated (signature, issuer, audience, nonce, expiry); the user of the email in this subscription is signed in, or provisioned when the settings say so. 303 to the console with the session cookie set.',
          REFUSALS,
        ].join('\n\n'),
        querystring: SsoCallbackQuery,
        response: {
          303: Type.Null({ description: 'To the console, signed in; or back to the sign-in page with `sso_error`.' }),
        },
      },
    },
    async (request, reply) => {
      const name = flowCookieName(request, publicUrl)
      // One use: whatever the outcome, the flow is over.
      reply.clearCookie(name, flowOptions(request, publicUrl))
      const finished = await sso.finish(request.cookies[name], new URL(request.url, publicUrl), {
        userAgent: request.headers['user-agent'],
        previousCookie: sessionCookieOf(request, publicUrl),
      })
      if (finished.outcome === 'refused') return refuse(reply, finished.reason)
      setSessionCookie(reply, request, publicUrl, finished.cookieValue)
      return reply.header('cache-control', 'no-store').redirect(CONSOLE_HOME, 303)
    },
  )
}
