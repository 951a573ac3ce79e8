import type { GuardedFetch } from '../../platform/http/guarded-fetch.js'

/** One text as the worker hands it to a provider. */
export interface SmsMessage {
  to: string
  body: string
  /** Where the provider posts delivery receipts (the Messages API's StatusCallback). */
  statusCallback?: string
}

/** A facility's provider, whichever protocol it speaks. */
export interface SmsProvider {
  /** Resolves with the provider's id of the message once it accepted it. */
  send(from: string, message: SmsMessage): Promise<{ messageId: string }>
}

/** The provider refused this text for good (a bad number, a blocked recipient): not retried. */
export class SmsRefused extends Error {}

/** The provider asked us to slow down (HTTP 429, SMPP ESME_RTHROTTLED): retried with the back-off. */
export class SmsThrottled extends Error {}

/**
 * The request went out and no answer came back (a deadline passed): the provider may have accepted
 * it. It is not sent again (rather than risk a duplicate) and is recorded `unconfirmed`, as a text
 * whose worker was killed mid-send is: nobody said it was sent.
 */
export class UnconfirmedText extends Error {}

export interface MessagesApiConfig {
  /** e.g. https://api.twilio.com/2010-04-01, or a SignalWire space's /api/laml/2010-04-01. */
  url: string
  accountSid: string
  authToken: string
}

/**
 * The Twilio-style Messages REST request, which SignalWire and others accept as is:
 * POST {url}/Accounts/{sid}/Messages.json, form-encoded To/From/Body/StatusCallback, Basic auth.
 * Through the guarded fetch: the URL is an admin's choice, so private addresses are refused at
 * connect time. 429: throttled; any other 4xx: refused for good; 5xx and network errors: retried.
 */
export function createMessagesApiProvider(cfg: MessagesApiConfig, fetch: GuardedFetch): SmsProvider {
  const endpoint = `${cfg.url.replace(/\/+$/, '')}/Accounts/${encodeURIComponent(cfg.accountSid)}/Messages.json`
  const auth = `Basic ${Buffer.from(`${cfg.accountSid}:${cfg.authToken}`).toString('base64')}`
  return {
    async send(from, m) {
      const form = new URLSearchParams({ To: m.to, From: from, Body: m.body })
      if (m.statusCallback) form.set('StatusCallback', m.statusCallback)
      let res: Response
      try {
        res = await fetch(endpoint, {
          method: 'POST',
          headers: {
            authorization: auth,
            'content-type': 'application/x-www-form-urlencoded',
            accept: 'application/json',
          },
          body: form.toString(),
        })
      } catch (e) {
        const name = (e as Error).name
        if (name === 'TimeoutError' || name === 'AbortError')
          throw new UnconfirmedText(
            `the provider did not answer in time; the text may have been sent, so it is not sent again`,
          )
        throw e
      }
      const text = await res.text()
      let body: { sid?: unknown; message?: unknown; code?: unknown } = {}
      try {
        body = JSON.parse(text) as typeof body
      } catch {
        // not JSON: the status says enough
      }
      const said = `HTTP ${res.status}${typeof body.code === 'number' || typeof body.code === 'string' ? ` (code ${body.code})` : ''}${typeof body.message === 'string' ? `: ${body.message}` : ''}`
      if (res.status === 429) throw new SmsThrottled(`the provider is rate limiting: ${said}`)
      if (res.status >= 400 && res.status < 500) throw new SmsRefused(`the provider refused the text: ${said}`)
      if (!res.ok) throw new Error(`the provider failed: ${said}`)
      if (typeof body.sid !== 'string' || !body.sid)
        throw new Error(`the provider answered ${res.status} without a message sid`)
      return { messageId: body.sid }
    },
  }
}
