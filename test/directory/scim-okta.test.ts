import { describe, expect, it } from 'vitest'
import { useTestApp } from '../support/use-test-app.js'
import { q, scimCaller } from './scim-support.js'

const t = useTestApp()

const USER = 'urn:ietf:params:scim:schemas:core:2.0:User'
const GROUP = 'urn:ietf:params:scim:schemas:core:2.0:Group'
const LIST = 'urn:ietf:params:scim:api:messages:2.0:ListResponse'
const PATCH = 'urn:ietf:params:scim:api:messages:2.0:PatchOp'

// The request sequence of Okta's SCIM 2.0 reference ("Okta and SCIM Version 2.0"), in its order:
// test the connection, look the user up by userName, create, read, update (PUT, as app integration
// wizard apps do), deactivate and reactivate by PATCH, a password push (dropped), then groups: create,
// list, read, rename, add and remove members, delete.
describe('Okta provisioning, as its SCIM 2.0 reference sends it', () => {
  it('provisions, updates, deactivates and reactivates a user, and pushes groups', async () => {
    const c = await t.newClient()
    const okta = await scimCaller(t, c)

    // Test API credentials: GET /Users?startIndex=1&count=2, a ListResponse even when empty.
    expect(await okta.ok('GET', '/Users?startIndex=1&count=2')).toEqual({
      schemas: [LIST],
      totalResults: 0,
      startIndex: 1,
      itemsPerPage: 0,
      Resources: [],
    })
    expect(
      await okta.ok('GET', `/Users?filter=${q('userName eq "test.user@okta.local"')}&startIndex=1&count=100`),
    ).toMatchObject({
      totalResults: 0,
      Resources: [],
    })

    const created = await okta.ok('POST', '/Users', {
      schemas: [USER],
      userName: 'test.user@okta.local',
      name: { givenName: 'Test', familyName: 'User' },
      emails: [{ primary: true, value: 'test.user@okta.local', type: 'work' }],
      displayName: 'Test User',
      locale: 'en-US',
      externalId: '00ujl29u0le5T6Aj10h7',
      groups: [],
      password: '1mz050nq',
      active: true,
    })
    expect(created).toMatchObject({
      schemas: [USER],
      id: expect.any(String),
      userName: 'test.user@okta.local',
      externalId: '00ujl29u0le5T6Aj10h7',
      name: { givenName: 'Test', familyName: 'User' },
      emails: [{ primary: true, value: 'test.user@okta.local', type: 'work' }],
      displayName: 'Test User',
      active: true,
      meta: { resourceType: 'User', location: expect.stringMatching(/\/scim\/v2\/Users\//) },
    })
    expect(created).not.toHaveProperty('password')
    const id = created.id as string

    // The contact it made: a receiver, source scim, with the IdP's id and its language from the locale.
    const contact = await t.inject({ method: 'GET', url: `/api/v1/contacts/${id}`, headers: c.auth })
    expect(contact.json()).toMatchObject({
      contactId: id,
      name: 'Test User',
      email: 'test.user@okta.local',
      externalId: '00ujl29u0le5T6Aj10h7',
      source: 'scim',
      status: 'active',
      language: 'en-US',
    })
    const stored = await t.ctx.db
      .selectFrom('contacts')
      .select(['scim_attributes'])
      .where('contact_id', '=', id)
      .executeTakeFirstOrThrow()
    expect(JSON.stringify(stored.scim_attributes)).not.toContain('1mz050nq')

    // Okta links rather than duplicates: the lookup now finds it; a second POST is a 409 uniqueness.
    const found = await okta.ok(
      'GET',
      `/Users?filter=${q('userName eq "test.user@okta.local"')}&startIndex=1&count=100`,
    )
    expect(found).toMatchObject({ totalResults: 1, itemsPerPage: 1, Resources: [{ id }] })
    const again = await okta.call('POST', '/Users', { schemas: [USER], userName: 'TEST.USER@okta.local', active: true })
    expect(again.statusCode).toBe(409)
    expect(again.json()).toMatchObject({ status: '409', scimType: 'uniqueness' })

    expect(await okta.ok('GET', `/Users/${id}`)).toMatchObject({ id, userName: 'test.user@okta.local' })

    // Update (PUT): the whole user.
    const put = await okta.ok('PUT', `/Users/${id}`, {
      schemas: [USER],
      id,
      userName: 'test.user@okta.local',
      name: { givenName: 'Another', familyName: 'User' },
      emails: [{ primary: true, value: 'test.user@okta.local', type: 'work' }],
      displayName: 'Another User',
      locale: 'en-US',
      externalId: '00ujl29u0le5T6Aj10h7',
      groups: [],
      active: true,
    })
    expect(put).toMatchObject({ id, displayName: 'Another User', name: { givenName: 'Another' } })

    // Deactivate: the contact becomes inactive, never deleted.
    const off = await okta.ok('PATCH', `/Users/${id}`, {
      schemas: [PATCH],
      Operations: [{ op: 'replace', value: { active: false } }],
    })
    expect(off).toMatchObject({ id, active: false })
    const inactive = await t.inject({ method: 'GET', url: `/api/v1/contacts/${id}`, headers: c.auth })
    expect(inactive.json()).toMatchObject({ status: 'inactive' })
    expect(await okta.ok('GET', `/Users?filter=${q('userName eq "test.user@okta.local"')}`)).toMatchObject({
      totalResults: 1,
      Resources: [{ id, active: false }],
    })
    // Reactivate, and a password push (accepted, never kept).
    expect(
      await okta.ok('PATCH', `/Users/${id}`, {
        schemas: [PATCH],
        Operations: [{ op: 'replace', value: { active: true } }],
      }),
    ).toMatchObject({ active: true })
    const pw = await okta.ok('PATCH', `/Users/${id}`, {
      schemas: [PATCH],
      Operations: [{ op: 'replace', value: { password: 'New-secret-1' } }],
    })
    expect(pw).not.toHaveProperty('password')

    // Groups.
    const group = await okta.ok('POST', '/Groups', { schemas: [GROUP], displayName: 'Test SCIMv2', members: [] })
    expect(group).toMatchObject({ schemas: [GROUP], id: expect.any(String), displayName: 'Test SCIMv2', members: [] })
    const gid = group.id as string
    expect(await okta.ok('GET', '/Groups?startIndex=1&count=100')).toMatchObject({
      totalResults: 1,
      Resources: [{ id: gid }],
    })
    expect(await okta.ok('GET', `/Groups/${gid}`)).toMatchObject({ id: gid, displayName: 'Test SCIMv2' })
    expect(
      await okta.ok('PATCH', `/Groups/${gid}`, {
        schemas: [PATCH],
        Operations: [{ op: 'replace', value: { id: gid, displayName: 'Mailroom Team' } }],
      }),
    ).toMatchObject({ id: gid, displayName: 'Mailroom Team' })
    const added = await okta.ok('PATCH', `/Groups/${gid}`, {
      schemas: [PATCH],
      Operations: [{ op: 'add', path: 'members', value: [{ value: id, display: 'test.user@okta.local' }] }],
    })
    expect(added.members).toEqual([{ value: id, $ref: expect.stringContaining(`/Users/${id}`) }])
    // The group is a group contact; its members may collect its parcels (its delegates).
    const groupContact = await t.inject({ method: 'GET', url: `/api/v1/contacts/${gid}`, headers: c.auth })
    expect(groupContact.json()).toMatchObject({
      name: 'Mailroom Team',
      group: true,
      source: 'scim',
      delegates: [{ contactId: id }],
    })
    const removed = await okta.ok('PATCH', `/Groups/${gid}`, {
      schemas: [PATCH],
      Operations: [{ op: 'remove', path: `members[value eq "${id}"]` }],
    })
    expect(removed.members).toEqual([])
    await okta.ok('DELETE', `/Groups/${gid}`)
    expect(await okta.ok('GET', `/Groups/${gid}`)).toMatchObject({ id: gid })
    const gone = await t.inject({ method: 'GET', url: `/api/v1/contacts/${gid}`, headers: c.auth })
    expect(gone.json()).toMatchObject({ status: 'inactive' })
  })
})
