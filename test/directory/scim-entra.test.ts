import { describe, expect, it } from 'vitest'
import { useTestApp } from '../support/use-test-app.js'
import { q, scimCaller } from './scim-support.js'

const t = useTestApp()

const USER = 'urn:ietf:params:scim:schemas:core:2.0:User'
const ENTERPRISE = 'urn:ietf:params:scim:schemas:extension:enterprise:2.0:User'
const GROUP = 'urn:ietf:params:scim:schemas:core:2.0:Group'
const PATCH = 'urn:ietf:params:scim:api:messages:2.0:PatchOp'

// The request/response examples of Microsoft's "Tutorial: Develop and plan provisioning for a SCIM
// endpoint in Microsoft Entra ID", in its order: user operations, then group operations.
describe('Entra ID provisioning, as Microsoft’s SCIM tutorial sends it', () => {
  it('creates, finds, updates, disables and deletes a user', async () => {
    const c = await t.newClient()
    const entra = await scimCaller(t, c, 'Entra ID')

    const created = await entra.ok('POST', '/Users', {
      schemas: [USER, ENTERPRISE],
      externalId: '0a21f0f2-8d2a-4f8e-bf98-7363c4aed4ef',
      userName: 'Test_User_ab6490ee-1e48-479e-a20b-2d77186b5dd1',
      active: true,
      emails: [{ primary: true, type: 'work', value: 'Test_User_fd0ea19b-0777-472c-9f96-4f70d2226f2e@testuser.com' }],
      meta: { resourceType: 'User' },
      name: { formatted: 'givenName familyName', familyName: 'familyName', givenName: 'givenName' },
      roles: [],
    })
    expect(created).toMatchObject({
      id: expect.any(String),
      externalId: '0a21f0f2-8d2a-4f8e-bf98-7363c4aed4ef',
      userName: 'Test_User_ab6490ee-1e48-479e-a20b-2d77186b5dd1',
      active: true,
      emails: [{ primary: true, type: 'work', value: 'Test_User_fd0ea19b-0777-472c-9f96-4f70d2226f2e@testuser.com' }],
      name: { formatted: 'givenName familyName', familyName: 'familyName', givenName: 'givenName' },
      meta: { resourceType: 'User', created: expect.any(String), lastModified: expect.any(String) },
    })
    const id = created.id as string
    expect(await entra.ok('GET', `/Users/${id}`)).toMatchObject({ id, userName: created.userName })

    // Get User by query, and by query with zero results.
    const byQuery = await entra.ok('GET', `/Users?filter=${q(`userName eq "${created.userName}"`)}`)
    expect(byQuery).toMatchObject({ totalResults: 1, itemsPerPage: 1, startIndex: 1, Resources: [{ id }] })
    expect(await entra.ok('GET', `/Users?filter=${q('userName eq "non-existent user"')}`)).toMatchObject({
      totalResults: 0,
      Resources: [],
    })
    // Entra's matching on externalId, and on the work email.
    expect(
      await entra.ok('GET', `/Users?filter=${q('externalId eq "0a21f0f2-8d2a-4f8e-bf98-7363c4aed4ef"')}`),
    ).toMatchObject({
      totalResults: 1,
    })
    expect(
      await entra.ok(
        'GET',
        `/Users?filter=${q('emails[type eq "work"].value eq "test_user_fd0ea19b-0777-472c-9f96-4f70d2226f2e@testuser.com"')}`,
      ),
    ).toMatchObject({ totalResults: 1 })

    // Update User [Multi-valued properties]: capitalised ops, a filtered path.
    const multi = await entra.ok('PATCH', `/Users/${id}`, {
      schemas: [PATCH],
      Operations: [
        { op: 'Replace', path: 'emails[type eq "work"].value', value: 'updatedEmail@microsoft.com' },
        { op: 'Replace', path: 'name.familyName', value: 'updatedFamilyName' },
      ],
    })
    expect(multi).toMatchObject({
      emails: [{ type: 'work', value: 'updatedEmail@microsoft.com' }],
      name: { familyName: 'updatedFamilyName' },
    })
    expect((await t.inject({ method: 'GET', url: `/api/v1/contacts/${id}`, headers: c.auth })).json()).toMatchObject({
      email: 'updatedEmail@microsoft.com',
    })

    // Update User [Single-valued properties].
    const single = await entra.ok('PATCH', `/Users/${id}`, {
      schemas: [PATCH],
      Operations: [{ op: 'Replace', path: 'userName', value: '5b50642d-79fc-4410-9e90-4c077cdd1a59@testuser.com' }],
    })
    expect(single.userName).toBe('5b50642d-79fc-4410-9e90-4c077cdd1a59@testuser.com')

    // Enterprise attributes by their qualified path; a department becomes the contact's company.
    const dept = await entra.ok('PATCH', `/Users/${id}`, {
      schemas: [PATCH],
      Operations: [
        { op: 'Add', path: `${ENTERPRISE}:department`, value: 'Finance' },
        { op: 'Add', path: `${ENTERPRISE}:employeeNumber`, value: 'E-1007' },
      ],
    })
    expect(dept[ENTERPRISE]).toEqual({ department: 'Finance', employeeNumber: 'E-1007' })
    expect((await t.inject({ method: 'GET', url: `/api/v1/contacts/${id}`, headers: c.auth })).json()).toMatchObject({
      company: 'Finance',
      personalId: 'E-1007',
    })

    // Disable User; Entra's older "False" string is read too.
    expect(
      await entra.ok('PATCH', `/Users/${id}`, {
        schemas: [PATCH],
        Operations: [{ op: 'Replace', path: 'active', value: false }],
      }),
    ).toMatchObject({ active: false })
    expect(
      await entra.ok('PATCH', `/Users/${id}`, {
        schemas: [PATCH],
        Operations: [{ op: 'Replace', path: 'active', value: 'True' }],
      }),
    ).toMatchObject({ active: true })

    // Delete User: 204, and the contact is deactivated, not deleted.
    await entra.ok('DELETE', `/Users/${id}`)
    expect((await t.inject({ method: 'GET', url: `/api/v1/contacts/${id}`, headers: c.auth })).json()).toMatchObject({
      status: 'inactive',
    })
  })

  it('creates, finds, renames a group and adds and removes its members', async () => {
    const c = await t.newClient()
    const entra = await scimCaller(t, c, 'Entra ID')
    const member = await entra.ok('POST', '/Users', { schemas: [USER], userName: 'member@testuser.com', active: true })

    const group = await entra.ok('POST', '/Groups', {
      schemas: [GROUP, 'http://schemas.microsoft.com/2006/11/ResourceManagement/ADSCIM/2.0/Group'],
      externalId: '8aa1a0c0-c4c3-4bc0-b4a5-2ef676900159',
      displayName: 'displayName',
      meta: { resourceType: 'Group' },
    })
    expect(group).toMatchObject({
      id: expect.any(String),
      externalId: '8aa1a0c0-c4c3-4bc0-b4a5-2ef676900159',
      displayName: 'displayName',
      meta: { resourceType: 'Group' },
    })
    const gid = group.id as string

    // Get Group, members excluded; Get Group by displayName.
    const got = await entra.ok('GET', `/Groups/${gid}?excludedAttributes=members`)
    expect(got).toMatchObject({ id: gid, displayName: 'displayName' })
    expect(got).not.toHaveProperty('members')
    const byName = await entra.ok(
      'GET',
      `/Groups?excludedAttributes=members&filter=${q('displayName eq "displayName"')}`,
    )
    expect(byName).toMatchObject({ totalResults: 1, Resources: [{ id: gid }] })
    expect(byName.Resources[0]).not.toHaveProperty('members')

    // Update Group [Non-member attributes].
    expect(
      await entra.ok('PATCH', `/Groups/${gid}`, {
        schemas: [PATCH],
        Operations: [
          { op: 'Replace', path: 'displayName', value: '1879db59-3bdf-4490-ad68-ab880a269474updatedDisplayName' },
        ],
      }),
    ).toMatchObject({ displayName: '1879db59-3bdf-4490-ad68-ab880a269474updatedDisplayName' })

    // Update Group [Add Members], then the membership check Entra makes, then [Remove Members].
    await entra.ok('PATCH', `/Groups/${gid}`, {
      schemas: [PATCH],
      Operations: [{ op: 'Add', path: 'members', value: [{ $ref: null, value: member.id }] }],
    })
    const isMember = await entra.ok(
      'GET',
      `/Groups?excludedAttributes=members&filter=${q(`id eq "${gid}" and members[value eq "${member.id}"]`)}`,
    )
    expect(isMember.totalResults).toBe(1)
    await entra.ok('PATCH', `/Groups/${gid}`, {
      schemas: [PATCH],
      Operations: [{ op: 'Remove', path: 'members', value: [{ $ref: null, value: member.id }] }],
    })
    expect(
      (await entra.ok('GET', `/Groups?filter=${q(`id eq "${gid}" and members[value eq "${member.id}"]`)}`))
        .totalResults,
    ).toBe(0)
    // A member that is no user of the subscription: 400 invalidValue, nothing changed.
    const stranger = await entra.call('PATCH', `/Groups/${gid}`, {
      schemas: [PATCH],
      Operations: [{ op: 'Add', path: 'members', value: [{ value: 'con_nobody' }] }],
    })
    expect(stranger.statusCode).toBe(400)
    expect(stranger.json()).toMatchObject({ scimType: 'invalidValue' })

    // Delete Group: 204.
    await entra.ok('DELETE', `/Groups/${gid}`)
  })
})
