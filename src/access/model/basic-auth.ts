/** RFC 7617 credentials; client ids and secrets are form-urlencoded first (RFC 6749 §2.3.1). */
export function parseBasicAuth(header: string | undefined): { clientId: string; clientSecret: string } | undefined {
  if (!header) return undefined
  const match = /^basic\s+([A-Za-z0-9+/=_-]+)\s*$/i.exec(header)
  if (!match) return undefined
  const decoded = Buffer.from(match[1]!, 'base64').toString('utf8')
  const colon = decoded.indexOf(':')
  if (colon <= 0) return undefined
  try {
    const clientId = decodeURIComponent(decoded.slice(0, colon).replace(/\+/g, ' '))
    const clientSecret = decodeURIComponent(decoded.slice(colon + 1).replace(/\+/g, ' '))
    return clientId && clientSecret ? { clientId, clientSecret } : undefined
  } catch {
    return undefined
  }
}
