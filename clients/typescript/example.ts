/**
 * A small program on the generated client: a token, a contact, a package, a search.
 * Type-checked with the project (`npm run typecheck`); test/clients/client.test.ts runs it.
 *   MAILROOM_URL=http://localhost:8080 CLIENT_ID=… CLIENT_SECRET=… node --import tsx clients/typescript/example.ts
 */
import createClient from 'openapi-fetch'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import type { paths } from './schema.js'

export async function example(
  baseUrl: string,
  clientId: string,
  clientSecret: string,
): Promise<{ packageId: string; found: number }> {
  const api = createClient<paths>({ baseUrl })

  const basic = `Basic ${Buffer.from(`${clientId}:${clientSecret}`).toString('base64')}`
  const token = await api.POST('/auth/api/v1/token', {
    headers: { Authorization: basic },
    body: { grant_type: 'client_credentials' },
  })
  if (!token.data) throw new Error(`token: ${JSON.stringify(token.error)}`)
  api.use({
    onRequest: ({ request }) => (request.headers.set('Authorization', `Bearer ${token.data.access_token}`), request),
  })

  const contact = await api.POST('/api/v1/contacts', {
    body: { contactType: 'RECEIVER', name: 'Grace Hopper', email: 'grace@example.com' },
  })
  if (!contact.data) throw new Error(`contact: ${JSON.stringify(contact.error)}`)

  const trackingNumber = await api.POST('/api/v1/trackingNumbers')
  if (!trackingNumber.data) throw new Error(`tracking number: ${JSON.stringify(trackingNumber.error)}`)

  const added = await api.POST('/api/v1/packages', {
    params: { header: { 'X-User-Name': 'front desk' } },
    body: {
      package: { trackingNumber: trackingNumber.data.trackingNumber, receiver: { contactId: contact.data.contactId } },
    },
  })
  if (!added.data) throw new Error(`add: ${JSON.stringify(added.error)}`)

  const search = await api.GET('/api/v1/packages', {
    params: { query: { search: `trackingNumber:${added.data.trackingNumber}` } },
  })
  if (!search.data) throw new Error(`search: ${JSON.stringify(search.error)}`)
  return { packageId: added.data.packageId, found: search.data.totalCount }
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const result = await example(
    process.env.MAILROOM_URL ?? 'http://localhost:8080',
    process.env.CLIENT_ID ?? '',
    process.env.CLIENT_SECRET ?? '',
  )
  console.log(result)
}
