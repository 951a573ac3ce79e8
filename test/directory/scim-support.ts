import type { LightMyRequestResponse } from 'fastify'
import { expect } from 'vitest'
import type { TestApp, TestClient } from '../support/build-test-app.js'

export interface ScimCaller {
  token: string
  call(
    method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE',
    url: string,
    body?: unknown,
  ): Promise<LightMyRequestResponse>
  /** The call, which must answer `status`; its JSON body (undefined for 204). */
  ok(method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE', url: string, body?: unknown, status?: number): Promise<any>
}

/** A SCIM token of the client's subscription, made as an admin would (the API), and a caller using it. */
export async function scimCaller(t: TestApp, c: TestClient, name = 'Okta'): Promise<ScimCaller> {
  const res = await t.inject({
    method: 'POST',
    url: '/api/v1/directory/scim/tokens',
    headers: c.auth,
    payload: { name },
  })
  expect(res.statusCode, res.body).toBe(201)
  const token = res.json().token as string
  const call: ScimCaller['call'] = (method, url, body) =>
    t.inject({
      method,
      url: `/scim/v2${url}`,
      headers: {
        authorization: `Bearer ${token}`,
        accept: 'application/scim+json',
        ...(body === undefined ? {} : { 'content-type': 'application/scim+json; charset=utf-8' }),
      },
      ...(body === undefined ? {} : { payload: JSON.stringify(body) }),
    })
  return {
    token,
    call,
    async ok(method, url, body, status) {
      const r = await call(method, url, body)
      expect(r.statusCode, r.body).toBe(status ?? (method === 'POST' ? 201 : method === 'DELETE' ? 204 : 200))
      if (r.statusCode === 204) return undefined
      expect(r.headers['content-type']).toMatch(/^application\/scim\+json/)
      return r.json()
    },
  }
}

export const q = (filter: string) => encodeURIComponent(filter)
