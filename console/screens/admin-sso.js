// Admin › Single sign-on: the subscription's OpenID Connect provider (issue 28.5). One form over
// GET/PUT /api/v1/sso; the server checks every rule and names the field at fault. docs/sso.md is the
// walk-through (what to register at the provider, the break-glass admin).
import { ApiError } from '../api.js'
import { fieldErrors, useSettings } from '../admin-kit.js'
import { html, Field, Alert, refusal } from '../ui.js'
import { USER_ROLES } from '../vocabulary.js'

const FIELDS = [
  'enabled',
  'issuer',
  'clientId',
  'clientSecret',
  'emailDomains',
  'provisionUsers',
  'defaultRole',
  'requireVerifiedEmail',
  'passwordSignIn',
]

/** The form's values from the API's settings: domains as one line, the secret empty (typing one replaces it). */
const formOf = (s) => ({
  enabled: s.enabled,
  issuer: s.issuer ?? '',
  clientId: s.clientId ?? '',
  clientSecret: '',
  storedSecret: s.clientSecret ?? null,
  emailDomains: s.emailDomains.join(', '),
  claims: s.domainClaims ?? [],
  provisionUsers: s.provisionUsers,
  defaultRole: s.defaultRole,
  requireVerifiedEmail: s.requireVerifiedEmail,
  passwordSignIn: s.passwordSignIn,
  redirectUri: s.redirectUri,
})

/** The API's body: empty text fields left out (the server says which are required), an empty secret keeps the stored one. */
/** A claim as the list says it: pending ones say why single sign-on does not start for them. */
const claimText = (c) =>
  c.status === 'active'
    ? `${c.domain}: active`
    : `${c.domain}: pending (until the installation’s operator grants it, single sign-on does not start for it)`

const bodyOf = (v) => ({
  enabled: v.enabled,
  ...(v.issuer.trim() ? { issuer: v.issuer.trim() } : {}),
  ...(v.clientId.trim() ? { clientId: v.clientId.trim() } : {}),
  ...(v.clientSecret ? { clientSecret: v.clientSecret } : {}),
  emailDomains: v.emailDomains.split(/[,;\s]+/).filter(Boolean),
  provisionUsers: v.provisionUsers,
  defaultRole: v.defaultRole,
  requireVerifiedEmail: v.requireVerifiedEmail,
  passwordSignIn: v.passwordSignIn,
})

const errorsAt = fieldErrors

export function SingleSignOn() {
  const { values, setValues, loadError, error, done, busy, save } = useSettings('/api/v1/sso', {
    formOf,
    bodyOf,
    saved: 'Single sign-on settings saved.',
  })
  if (loadError) return html`<${Alert} messages=${[refusal(loadError)]} />`
  if (!values) return html`<p role="status">Loading the single sign-on settings…</p>`

  const set = (k) => (e) =>
    setValues({ ...values, [k]: e.target.type === 'checkbox' ? e.target.checked : e.target.value })
  const top = error
    ? error instanceof ApiError && error.items.length > 0
      ? error.unclaimed(FIELDS)
      : [refusal(error)]
    : []
  return html`<form class="card settings sso-settings" novalidate onSubmit=${save} aria-labelledby="sso-title">
    <h2 id="sso-title">Single sign-on (OpenID Connect)</h2>
    <${Alert} messages=${top} />
    <${Alert} kind="info" messages=${done ? [done] : []} />
    <p class="sso-redirect">Register this redirect URI with your identity provider, exactly: <code>${values.redirectUri}</code></p>
    <label class="check"><input type="checkbox" id="sso-enabled" aria-describedby=${errorsAt(error, 'enabled').length > 0 ? 'sso-enabled-error' : undefined} checked=${values.enabled} onChange=${set('enabled')} /> Offer single sign-on on the sign-in page</label>
    ${errorsAt(error, 'enabled').length > 0 && html`<p id="sso-enabled-error" class="field-error" role="alert">${errorsAt(error, 'enabled').join(' ')}</p>`}
    <${Field} label="Issuer" id="sso-issuer" hint="The provider's issuer URL, as its discovery document (/.well-known/openid-configuration under it) names it." errors=${errorsAt(error, 'issuer')}>${(
      a,
    ) => html`<input ...${a} type="url" value=${values.issuer} onInput=${set('issuer')} />`}</${Field}>
    <${Field} label="Client ID" id="sso-client-id" errors=${errorsAt(error, 'clientId')}>${(a) =>
      html`<input ...${a} autocomplete="off" value=${values.clientId} onInput=${set('clientId')} />`}</${Field}>
    <${Field}
      label="Client secret"
      id="sso-client-secret"
      hint=${values.storedSecret ? `Stored (${values.storedSecret}); leave empty to keep it, or type a new one.` : 'Leave empty for a public client (PKCE only).'}
      errors=${errorsAt(error, 'clientSecret')}
    >${(a) => html`<input ...${a} type="password" autocomplete="new-password" value=${values.clientSecret} onInput=${set('clientSecret')} />`}</${Field}>
    <${Field} label="Email domains" id="sso-domains" hint="Comma-separated, e.g. example.com, example.org: the sign-in page finds your organisation by the email's domain." errors=${errorsAt(error, 'emailDomains')}>${(
      a,
    ) => html`<input ...${a} value=${values.emailDomains} onInput=${set('emailDomains')} />`}</${Field}>
    ${
      values.claims.length > 0 &&
      html`<ul class="claims" aria-label="Claims in force">
        ${values.claims.map((c) => html`<li>${claimText(c)}</li>`)}
      </ul>`
    }
    <label class="check"><input type="checkbox" id="sso-provision" checked=${values.provisionUsers} onChange=${set('provisionUsers')} /> Create a user at the first sign-in of a new email of these domains</label>
    <${Field} label="Role of created users" id="sso-role" errors=${errorsAt(error, 'defaultRole')}>${(a) =>
      html`<select ...${a} value=${values.defaultRole} onChange=${set('defaultRole')}>
        ${USER_ROLES.map((r) => html`<option value=${r}>${r}</option>`)}
      </select>`}</${Field}>
    <label class="check"><input type="checkbox" id="sso-verified" checked=${values.requireVerifiedEmail} onChange=${set('requireVerifiedEmail')} /> Require the provider to say the email is verified</label>
    <label class="check"><input type="checkbox" id="sso-password" aria-describedby=${errorsAt(error, 'passwordSignIn').length > 0 ? 'sso-password-error' : undefined} checked=${values.passwordSignIn} onChange=${set('passwordSignIn')} /> Allow password sign-in (off: only an admin whose password was set with the command line still can)</label>
    ${errorsAt(error, 'passwordSignIn').length > 0 && html`<p id="sso-password-error" class="field-error" role="alert">${errorsAt(error, 'passwordSignIn').join(' ')}</p>`}
    <div class="actions"><button type="submit" disabled=${busy}>Save single sign-on settings</button></div>
  </form>`
}
