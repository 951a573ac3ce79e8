import { expect } from 'vitest'
import type { TestApp, TestClient } from './build-test-app.js'

/** Builders that go through the HTTP API, as a client would. Each asserts its own success. */
export function api(t: TestApp, client: TestClient) {
  const call = async (
    method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE',
    url: string,
    payload?: unknown,
    headers: Record<string, string> = {},
  ) => t.inject({ method, url, payload: payload as never, headers: { ...client.auth, ...headers } })
  const ok = async (
    method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE',
    url: string,
    payload?: unknown,
    status?: number,
  ) => {
    const res = await call(method, url, payload)
    expect(res.statusCode, `${method} ${url}: ${res.body}`).toBe(
      status ?? (method === 'POST' && !url.includes('inboundsites') ? 201 : 200),
    )
    return res.json()
  }
  let n = 0
  return {
    call,
    ok,
    async location(name = `Location ${++n}`, postalCode = '10001'): Promise<string> {
      const body = await ok('POST', '/api/v1/locations', {
        name,
        address: { line1: '1 Main St', city: 'New York', state: 'NY', postalCode, country: 'US' },
        timezone: 'America/New_York',
      })
      return body.locationId
    },
    async site(input: Record<string, unknown>): Promise<string> {
      return (await ok('POST', '/api/v1/inboundsites', input, 200)).inboundSiteId
    },
    async contact(
      contactType: 'SENDER' | 'RECEIVER' | 'ALL',
      name = `Contact ${++n}`,
      extra: Record<string, unknown> = {},
    ): Promise<string> {
      return (await ok('POST', '/api/v1/contacts', { contactType, name, ...extra })).contactId
    },
    /** A location with a primary site → building → shelf, a receiver, a sender and an ALL contact. */
    async mailroom() {
      const locationId = await this.location()
      const siteId = await this.site({ type: 'site', name: `HQ ${++n}`, locationId, primary: true })
      const buildingId = await this.site({ type: 'building', name: 'Building A', parent: siteId })
      const shelfId = await this.site({ type: 'shelf', name: 'Shelf 1', parent: buildingId })
      return {
        locationId,
        siteId,
        buildingId,
        shelfId,
        receiverId: await this.contact('RECEIVER', 'Ada Lovelace', { email: 'ada@example.com' }),
        senderId: await this.contact('SENDER', 'Acme Supplies'),
        allId: await this.contact('ALL', 'Grace Hopper'),
      }
    },
  }
}

let tn = 0
/** A fresh tracking number per call, unique within the test run. */
export function trackingNumber(prefix = '1ZTEST'): string {
  return `${prefix}${Date.now().toString(36).toUpperCase()}${(++tn).toString().padStart(4, '0')}`
}

/** Smallest valid images of each type, as data URLs. */
export const PNG_1PX =
  'data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg=='
export const JPEG_BYTES = Buffer.from([
  0xff, 0xd8, 0xff, 0xe0, 0x00, 0x10, 0x4a, 0x46, 0x49, 0x46, 0x00, 0x01, 0xff, 0xd9,
])
export const GIF_1PX = 'data:image/gif;base64,R0lGODlhAQABAIAAAAAAAP///yH5BAEAAAAALAAAAAABAAEAAAIBRAA7'
export const WEBP_BYTES = Buffer.concat([
  Buffer.from('RIFF'),
  Buffer.from([0x1a, 0, 0, 0]),
  Buffer.from('WEBPVP8 '),
  Buffer.alloc(14),
])
