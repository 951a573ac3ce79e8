import { describe, expect, it } from 'vitest'
import { CONTACT_TYPES } from '../../src/contacts/api/schemas.js'
import { DATA_TYPES } from '../../src/customfields/api/schemas.js'
import { FINISHED, HANDED_OVER, NOT_WAITING, PACKAGE_STATUSES } from '../../src/packages/model/statuses.js'
import { SITE_TYPES } from '../../src/sites/api/schemas.js'
import { useTestApp } from '../support/use-test-app.js'

// The console's copy of the server's vocabularies is the server's: /console/vocabulary.js, an ES
// module generated at start from the `as const` lists.
const t = useTestApp()
const get = (headers: Record<string, string> = {}) =>
  t.app.inject({ method: 'GET', url: '/console/vocabulary.js', headers })

describe('GET /console/vocabulary.js', () => {
  it('is an ES module exporting the server’s own lists', async () => {
    const res = await get()
    expect(res.statusCode).toBe(200)
    expect(res.headers['content-type']).toBe('text/javascript; charset=utf-8')
    expect(res.body).toContain('export const PACKAGE_STATUSES = [')
    const vocabulary = (await import(`data:text/javascript,${encodeURIComponent(res.body)}`)) as Record<string, unknown>
    expect(vocabulary).toMatchObject({
      PACKAGE_STATUSES: [...PACKAGE_STATUSES],
      HANDED_OVER: [...HANDED_OVER],
      FINISHED: [...FINISHED],
      NOT_WAITING: [...NOT_WAITING],
      CONTACT_TYPES: [...CONTACT_TYPES],
      SITE_TYPES: [...SITE_TYPES],
      CUSTOM_FIELD_DATA_TYPES: [...DATA_TYPES],
      USER_ROLES: ['admin', 'clerk'],
      CLIENT_STATUSES: ['active', 'disabled'],
    })
    expect(NOT_WAITING).toContain('IN_TRANSIT')
    for (const value of Object.values(vocabulary)) expect(Array.isArray(value)).toBe(true)
  })

  it('is revalidated by ETag like the console’s other files, under the console’s CSP', async () => {
    const first = await get()
    expect(first.headers['cache-control']).toBe('no-cache')
    expect(first.headers.etag).toMatch(/^"[A-Za-z0-9_-]+"$/)
    expect(String(first.headers['content-security-policy'])).toContain("script-src 'self'")
    const again = await get({ 'if-none-match': String(first.headers.etag) })
    expect(again.statusCode).toBe(304)
    expect(again.body).toBe('')
  })
})
