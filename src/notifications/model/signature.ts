import { createHmac, timingSafeEqual } from 'node:crypto'

/**
 * Twilio's request signature (X-Twilio-Signature; SignalWire signs the same way): base64
 * HMAC-SHA1, keyed by the auth token, of the URL it posted to followed by each form parameter's
 * name and value in name order. Written here with node:crypto: the `twilio` package's
 * validateRequest would bring axios and a dozen other packages for these lines.
 */
export function providerSignature(authToken: string, url: string, params: Record<string, string>): string {
  const signed =
    url +
    Object.keys(params)
      .sort()
      .map((k) => k + params[k])
      .join('')
  return createHmac('sha1', authToken).update(signed, 'utf8').digest('base64')
}

/** Compared in constant time. */
export function signatureMatches(
  authToken: string,
  url: string,
  params: Record<string, string>,
  given: string,
): boolean {
  const want = Buffer.from(providerSignature(authToken, url, params), 'base64')
  const got = Buffer.from(given, 'base64')
  return got.length === want.length && timingSafeEqual(got, want)
}
