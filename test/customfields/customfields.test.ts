import type { LightMyRequestResponse } from 'fastify'
import { describe, expect, it } from 'vitest'
import { itRefusesBadTokens } from '../support/auth-matrix.js'
import type { TestClient } from '../support/build-test-app.js'
import { useTestApp } from '../support/use-test-app.js'

const t = useTestApp()

type Method = 'GET' | 'POST' | 'PUT' | 'DELETE'
const call = (c: TestClient, method: Method, url: string, payload?: unknown) =>
  t.inject({ method, url, payload: payload as never, headers: c.auth })
const fields = (res: LightMyRequestResponse) =>
  res
    .json()
    .errors.map((e: { additionalParameters?: string }) => e.additionalParameters)
    .sort()
async function create(c: TestClient, body: Record<string, unknown>) {
  const res = await call(c, 'POST', '/api/v1/customfields', body)
  expect(res.statusCode, res.body).toBe(201)
  return res.json()
}

describe('custom fields', () => {
  itRefusesBadTokens(
    () => t,
    [
      { method: 'POST', url: '/api/v1/customfields', payload: { name: 'x', dataType: 'TEXT' } },
      { method: 'GET', url: '/api/v1/customfields' },
      { method: 'GET', url: '/api/v1/customfields/cf_x' },
      { method: 'PUT', url: '/api/v1/customfields/cf_x', payload: { name: 'y' } },
      { method: 'DELETE', url: '/api/v1/customfields/cf_x' },
    ],
  )

  it('creates, reads and lists definitions with exactly the record fields', async () => {
    const c = await t.newClient()
    const text = await create(c, { name: ' Cost Center ', dataType: 'TEXT' })
    expect(text.customFieldId).toMatch(/^cf_[0-9a-z]+$/)
    expect(text).toEqual({
      customFieldId: text.customFieldId,
      name: 'Cost Center',
      status: 'ACTIVE',
      dataType: 'TEXT',
      required: false,
    })
    const list = await create(c, {
      name: 'Priority',
      dataType: 'LIST',
      options: [' High', 'Low '],
      required: true,
      status: 'INACTIVE',
    })
    expect(list).toEqual({
      customFieldId: list.customFieldId,
      name: 'Priority',
      status: 'INACTIVE',
      dataType: 'LIST',
      required: true,
      options: ['High', 'Low'],
    })
    const flag = await create(c, { name: 'audit', dataType: 'BOOLEAN', options: [] })
    expect(flag).not.toHaveProperty('options')

    expect((await call(c, 'GET', `/api/v1/customfields/${list.customFieldId}`)).json()).toEqual(list)
    expect((await call(c, 'GET', '/api/v1/customfields')).json()).toEqual({
      customFields: [flag, text, list],
      totalCount: 3,
    })
    expect((await call(c, 'GET', '/api/v1/customfields?status=INACTIVE')).json()).toEqual({
      customFields: [list],
      totalCount: 1,
    })
    expect((await call(c, 'GET', '/api/v1/customfields?skip=1&limit=1')).json()).toEqual({
      customFields: [text],
      totalCount: 3,
    })
    expect(await t.ctx.companions.customFields.listDefinitions(c.subId)).toEqual([flag, text, list])
  })

  it('refuses bad input with a 400 naming each field', async () => {
    const c = await t.newClient()
    const cases: Array<[unknown, string[]]> = [
      [{}, ['dataType', 'name']],
      [{ name: 'x', dataType: 'STRING' }, ['dataType']],
      [{ name: 'x', dataType: 'text' }, ['dataType']],
      [{ name: ['a', 'b'], dataType: 'TEXT' }, ['name']],
      [{ name: '  ', dataType: 'TEXT' }, ['name']],
      [{ name: 'x'.repeat(101), dataType: 'TEXT' }, ['name']],
      [{ name: 'x', dataType: 'TEXT', status: 'active' }, ['status']],
      [{ name: 'x', dataType: 'TEXT', required: 'sometimes' }, ['required']],
      [{ name: 'x', dataType: 'LIST' }, ['options']],
      [{ name: 'x', dataType: 'LIST', options: [] }, ['options']],
      [{ name: 'x', dataType: 'LIST', options: ['a', ''] }, ['options[1]']],
      [{ name: 'x', dataType: 'LIST', options: ['x'.repeat(101)] }, ['options[0]']],
      [{ name: 'x', dataType: 'LIST', options: { a: 1 } }, ['options']],
      [{ name: 'x', dataType: 'LIST', options: ['Yes', 'No', 'yes '] }, ['options[2]']],
      [{ name: 'x', dataType: 'NUMBER', options: ['1'] }, ['options']],
      [{ name: 'x', dataType: 'LIST', options: Array.from({ length: 201 }, (_, i) => `o${i}`) }, ['options']],
    ]
    for (const [body, expected] of cases) {
      const res = await call(c, 'POST', '/api/v1/customfields', body)
      expect(res.statusCode, JSON.stringify(body)).toBe(400)
      expect(fields(res), JSON.stringify(body)).toEqual(expected)
      expect(res.json().errors[0].errorCode).toBe('validation_error')
    }
    expect((await call(c, 'GET', '/api/v1/customfields')).json().totalCount).toBe(0)
    for (const qs of ['?limit=201', '?skip=-1', '?status=on'])
      expect((await call(c, 'GET', `/api/v1/customfields${qs}`)).statusCode, qs).toBe(400)
  })

  it('keeps names unique per subscription ignoring case (409), on create and on rename', async () => {
    const c = await t.newClient()
    const first = await create(c, { name: 'Department', dataType: 'TEXT' })
    const dup = await call(c, 'POST', '/api/v1/customfields', { name: 'DEPARTMENT ', dataType: 'NUMBER' })
    expect(dup.statusCode).toBe(409)
    expect(dup.json().errors).toEqual([
      {
        errorCode: 'already_exists',
        errorDescription: 'A custom field with this name already exists.',
        additionalCode: 'CFD-4090',
        additionalInfo: '',
        additionalParameters: 'name',
        correlationID: expect.any(String),
      },
    ])
    const second = await create(c, { name: 'Cost', dataType: 'TEXT' })
    expect(
      (await call(c, 'PUT', `/api/v1/customfields/${second.customFieldId}`, { name: 'department' })).statusCode,
    ).toBe(409)
    expect((await call(c, 'GET', `/api/v1/customfields/${second.customFieldId}`)).json().name).toBe('Cost')
    // Renaming to itself in another case is fine; another subscription may use the name.
    expect(
      (await call(c, 'PUT', `/api/v1/customfields/${first.customFieldId}`, { name: 'DEPARTMENT' })).json().name,
    ).toBe('DEPARTMENT')
    await create(await t.newClient(), { name: 'Department', dataType: 'TEXT' })
  })

  it('updates by merging, and keeps options consistent with the type', async () => {
    const c = await t.newClient()
    const f = await create(c, { name: 'Size', dataType: 'TEXT' })
    const url = `/api/v1/customfields/${f.customFieldId}`
    expect((await call(c, 'PUT', url, { dataType: 'LIST' })).statusCode).toBe(400)
    const asList = await call(c, 'PUT', url, { dataType: 'LIST', options: ['S', 'M', 'L'], required: true })
    expect(asList.json()).toEqual({ ...f, dataType: 'LIST', options: ['S', 'M', 'L'], required: true })
    expect((await call(c, 'PUT', url, { status: 'INACTIVE' })).json()).toEqual({
      ...f,
      dataType: 'LIST',
      options: ['S', 'M', 'L'],
      required: true,
      status: 'INACTIVE',
    })
    expect(fields(await call(c, 'PUT', url, { options: ['S', 's'] }))).toEqual(['options[1]'])
    expect(fields(await call(c, 'PUT', url, { options: null }))).toEqual(['options'])
    expect(fields(await call(c, 'PUT', url, { dataType: 'NUMBER', options: ['1'] }))).toEqual(['options'])
    const asNumber = await call(c, 'PUT', url, { dataType: 'NUMBER' })
    expect(asNumber.json()).toEqual({ ...f, dataType: 'NUMBER', required: true, status: 'INACTIVE' })
    expect((await call(c, 'GET', url)).json()).toEqual(asNumber.json())
    for (const bad of [{ dataType: 'TEXTAREA' }, { required: 'no' }, { name: '' }, { status: 'OFF' }]) {
      expect((await call(c, 'PUT', url, bad)).statusCode, JSON.stringify(bad)).toBe(400)
    }
    expect((await call(c, 'GET', url)).json()).toEqual(asNumber.json())
  })

  it("answers 404 for another subscription's definition on every id route, and changes nothing", async () => {
    const owner = await t.newClient()
    const stranger = await t.newClient()
    const f = await create(owner, { name: 'Secret', dataType: 'TEXT' })
    for (const [method, payload] of [
      ['GET', undefined],
      ['PUT', { name: 'Mine now' }],
      ['DELETE', undefined],
    ] as const) {
      const res = await call(stranger, method, `/api/v1/customfields/${f.customFieldId}`, payload)
      expect(res.statusCode, method).toBe(404)
      expect(res.json().errors[0]).toMatchObject({ errorCode: 'not_found', additionalCode: 'CFD-4040' })
    }
    expect((await call(owner, 'GET', `/api/v1/customfields/${f.customFieldId}`)).json()).toEqual(f)
    expect((await call(stranger, 'GET', '/api/v1/customfields')).json()).toEqual({ customFields: [], totalCount: 0 })
    expect(await t.ctx.companions.customFields.listDefinitions(stranger.subId)).toEqual([])
    expect((await call(owner, 'GET', '/api/v1/customfields/cf_doesnotexist')).statusCode).toBe(404)
    for (const method of ['GET', 'PUT', 'DELETE'] as const) {
      const res = await call(
        owner,
        method,
        '/api/v1/customfields/bad%20id!',
        method === 'PUT' ? { name: 'x' } : undefined,
      )
      expect(res.statusCode, method).toBe(400)
      expect(fields(res)).toEqual(['customFieldId'])
    }
  })

  it('deletes softly: 404 afterwards, not listed, not a definition, and the name is free again', async () => {
    const c = await t.newClient()
    const f = await create(c, { name: 'Temp', dataType: 'DATE' })
    const url = `/api/v1/customfields/${f.customFieldId}`
    const del = await call(c, 'DELETE', url)
    expect(del.statusCode).toBe(200)
    expect(del.json()).toEqual({})
    for (const [method, payload] of [
      ['GET', undefined],
      ['PUT', { required: true }],
      ['DELETE', undefined],
    ] as const) {
      expect((await call(c, method, url, payload)).statusCode, method).toBe(404)
    }
    expect((await call(c, 'GET', '/api/v1/customfields')).json()).toEqual({ customFields: [], totalCount: 0 })
    expect(await t.ctx.companions.customFields.listDefinitions(c.subId)).toEqual([])
    const again = await create(c, { name: 'temp', dataType: 'TEXT' })
    expect(again.customFieldId).not.toBe(f.customFieldId)
    const row = await t.ctx.db
      .selectFrom('custom_fields')
      .select(['deleted_at'])
      .where('custom_field_id', '=', f.customFieldId)
      .executeTakeFirstOrThrow()
    expect(row.deleted_at).toEqual(t.clock.now())
  })
})
