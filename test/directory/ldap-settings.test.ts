import { describe, expect, it } from 'vitest'
import { api } from '../support/factories.js'
import { useTestApp } from '../support/use-test-app.js'

const t = useTestApp()

describe('LDAP settings', () => {
  it('keeps the stored bind password only for the same url and bindDn: a new host or account needs it again', async () => {
    const a = api(t, await t.newClient())
    const body = {
      url: 'ldap://127.0.0.1:3899',
      bindDn: 'cn=reader,dc=example,dc=org',
      bindPassword: 'secret',
      baseDn: 'ou=people,dc=example,dc=org',
    }
    await a.ok('PUT', '/api/v1/directory/ldap', body, 200)
    await a.ok('PUT', '/api/v1/directory/ldap', { ...body, bindPassword: '********', filter: '(uid=a*)' }, 200)
    for (const change of [{ url: 'ldaps://evil.example.net' }, { bindDn: 'cn=other,dc=example,dc=org' }])
      for (const bindPassword of ['********', undefined]) {
        const res = await a.call('PUT', '/api/v1/directory/ldap', { ...body, ...change, bindPassword })
        expect(res.statusCode, JSON.stringify(change)).toBe(400)
        expect(res.json().errors[0].additionalParameters).toBe('bindPassword')
      }
    expect((await a.ok('GET', '/api/v1/directory/ldap')).url).toBe(body.url)
    await a.ok('PUT', '/api/v1/directory/ldap', { ...body, url: 'ldaps://ldap.example.org' }, 200)
  })
})
