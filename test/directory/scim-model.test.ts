import { describe, expect, it } from 'vitest'
import { parseScimFilter } from '../../src/directory/model/scim-filter.js'
import { applyPatch, patchOperations } from '../../src/directory/model/scim-patch.js'
import { personToUser, userToPerson } from '../../src/directory/model/scim-user.js'
import { ScimError } from '../../src/directory/model/scim-error.js'

const PATCH = 'urn:ietf:params:scim:api:messages:2.0:PatchOp'
const ENTERPRISE = 'urn:ietf:params:scim:schemas:extension:enterprise:2.0:User'
const MAILROOM = 'urn:mailroom:params:scim:schemas:extension:mailroom:2.0:User'

const scimType = (f: () => unknown) => {
  try {
    f()
  } catch (err) {
    return err instanceof ScimError ? err.scimType : `not a ScimError: ${String(err)}`
  }
  return 'no error'
}

describe('SCIM filters → contact queries', () => {
  it('maps the filters Okta and Entra send', () => {
    expect(parseScimFilter('User', 'userName eq "a@b.c"')).toEqual({ op: 'eq', field: 'userName', value: 'a@b.c' })
    expect(parseScimFilter('User', 'UserName Eq "a"')).toEqual({ op: 'eq', field: 'userName', value: 'a' })
    expect(parseScimFilter('User', 'urn:ietf:params:scim:schemas:core:2.0:User:userName eq "a"')).toEqual({
      op: 'eq',
      field: 'userName',
      value: 'a',
    })
    expect(parseScimFilter('User', 'externalId eq "x"')).toEqual({ op: 'eq', field: 'externalId', value: 'x' })
    expect(parseScimFilter('User', 'emails[type eq "work"].value eq "a@b.c"')).toEqual({
      op: 'eq',
      field: 'email',
      value: 'a@b.c',
    })
    expect(parseScimFilter('Group', 'displayName eq "Sales"')).toEqual({ op: 'eq', field: 'name', value: 'Sales' })
    expect(parseScimFilter('Group', 'id eq "g" and members[value eq "u"]')).toEqual({
      op: 'and',
      of: [
        { op: 'eq', field: 'contactId', value: 'g' },
        { op: 'eq', field: 'member', value: 'u' },
      ],
    })
    expect(parseScimFilter('User', 'active eq true')).toEqual({ op: 'eq', field: 'active', value: true })
    expect(parseScimFilter('User', 'not (userName sw "x")')).toEqual({
      op: 'not',
      of: { op: 'sw', field: 'userName', value: 'x' },
    })
    expect(parseScimFilter('User', undefined)).toBeUndefined()
    expect(parseScimFilter('User', '  ')).toBeUndefined()
  })

  it('refuses what it cannot answer exactly, as invalidFilter', () => {
    for (const f of [
      'userName',
      'userName eq',
      'title eq "x"',
      'userName gt "a"',
      'meta.lastModified gt "2020-01-01T00:00:00Z"',
      'active eq "true"',
      'userName eq 5',
      'members[value eq "x"]',
      'emails[value co "x"]',
    ])
      expect(
        scimType(() => parseScimFilter('User', f)),
        f,
      ).toBe('invalidFilter')
    expect(scimType(() => parseScimFilter('Group', 'members co "x"'))).toBe('invalidFilter')
  })
})

describe('SCIM users ↔ contacts', () => {
  it('maps names, the primary email and phone, extensions, and drops the password', () => {
    const p = userToPerson({
      userName: 'ann',
      name: { givenName: 'Ann', familyName: 'Lee' },
      nickName: 'Annie',
      emails: [
        { value: 'home@x.org', type: 'home' },
        { value: 'work@x.org', type: 'work', primary: true },
      ],
      phoneNumbers: [{ value: '+1 555', type: 'mobile' }],
      locale: 'pt_br',
      password: 'secret',
      [ENTERPRISE]: { department: 'Ops', employeeNumber: '42' },
      [MAILROOM]: { unit: '12B', aliases: ['Nan'], moveOutDate: '2027-01-31' },
    })
    expect(p).toMatchObject({
      userName: 'ann',
      name: 'Ann Lee',
      email: 'work@x.org',
      phone: '+1 555',
      language: 'pt-BR',
      company: 'Ops',
      personalId: '42',
      unit: '12B',
      aliases: ['Annie', 'Nan'],
      moveOutDate: '2027-01-31',
      active: true,
    })
    expect(p.scimAttributes).not.toHaveProperty('password')
    // No extension sent: the contact's unit, company and language are left as they are.
    const bare = userToPerson({ userName: 'bob', active: 'False' })
    expect(bare).toMatchObject({ name: 'bob', email: null, active: false })
    expect(bare).not.toHaveProperty('unit')
    expect(bare).not.toHaveProperty('company')
    expect(bare).not.toHaveProperty('language')
    expect(scimType(() => userToPerson({ userName: ' ' }))).toBe('invalidValue')
    expect(scimType(() => userToPerson({ userName: 'x', active: 'maybe' }))).toBe('invalidValue')
  })

  it('shows a clerk’s correction of the email over what the provider sent', () => {
    const at = new Date('2026-01-01T00:00:00Z')
    const user = personToUser(
      {
        contactId: 'con_1',
        name: 'Ann Lee',
        userName: 'ann',
        email: 'new@x.org',
        active: true,
        group: false,
        source: 'scim',
        createdAt: at,
        updatedAt: at,
        scimAttributes: { emails: [{ value: 'old@x.org', primary: true }], name: { givenName: 'Ann' } },
      },
      'https://m.example/scim/v2',
    )
    expect(user).toMatchObject({
      id: 'con_1',
      emails: [{ value: 'new@x.org', primary: true }],
      name: { givenName: 'Ann' },
      meta: { location: 'https://m.example/scim/v2/Users/con_1', version: `W/"${at.getTime()}"` },
    })
  })
})

describe('SCIM PATCH', () => {
  const base = {
    userName: 'ann',
    active: true,
    name: { givenName: 'Ann' },
    emails: [{ type: 'work', value: 'a@x.org' }],
  }
  const patch = (ops: unknown[]) => applyPatch(base, patchOperations({ schemas: [PATCH], Operations: ops }))

  it('applies Okta’s and Entra’s forms', () => {
    expect(patch([{ op: 'replace', value: { active: false } }])).toMatchObject({ active: false })
    expect(patch([{ op: 'Replace', path: 'active', value: 'False' }]).active).toBe('False')
    expect(patch([{ op: 'Replace', path: 'emails[type eq "work"].value', value: 'b@x.org' }]).emails).toEqual([
      { type: 'work', value: 'b@x.org' },
    ])
    expect(patch([{ op: 'Add', path: 'phoneNumbers[type eq "work"].value', value: '+1' }]).phoneNumbers).toEqual([
      { type: 'work', value: '+1' },
    ])
    expect(
      patch([{ op: 'replace', value: { 'name.familyName': 'Lee', [`${ENTERPRISE}:department`]: 'Ops' } }]),
    ).toMatchObject({
      name: { givenName: 'Ann', familyName: 'Lee' },
      [ENTERPRISE]: { department: 'Ops' },
    })
    expect(patch([{ op: 'add', value: { [ENTERPRISE]: { employeeNumber: '7' } } }])).toMatchObject({
      [ENTERPRISE]: { employeeNumber: '7' },
    })
    expect(patch([{ op: 'remove', path: `${ENTERPRISE}:department` }])[ENTERPRISE]).toEqual({})
    expect(patch([{ op: 'remove', path: 'name.givenName' }]).name).toEqual({})
  })

  it('refuses paths and value keys that reach a prototype, and changes no object of the process', () => {
    const polluting: unknown[] = [
      { op: 'add', path: `${ENTERPRISE}:__proto__.x`, value: 'p' },
      { op: 'replace', path: `${ENTERPRISE}:constructor.prototype.x`, value: 'p' },
      { op: 'add', path: '__proto__.x', value: 'p' },
      { op: 'add', path: 'constructor.prototype.x', value: 'p' },
      { op: 'replace', path: 'name.__proto__.x', value: 'p' },
      { op: 'add', value: JSON.parse('{"__proto__.x": "p"}') },
      { op: 'add', value: JSON.parse('{"__proto__": {"x": "p"}}') },
      { op: 'add', value: JSON.parse(`{"${ENTERPRISE}": {"__proto__": {"x": "p"}}}`) },
      { op: 'replace', path: 'name', value: JSON.parse('{"__proto__": {"x": "p"}}') },
    ]
    for (const op of polluting) {
      expect(
        scimType(() => patch([op])),
        JSON.stringify(op),
      ).toBe('invalidPath')
      expect(({} as Record<string, unknown>).x, JSON.stringify(op)).toBeUndefined()
    }
  })

  it('refuses malformed bodies as invalidSyntax', () => {
    for (const body of [
      null,
      { Operations: [{ op: 'replace', value: {} }] },
      { schemas: [PATCH], Operations: [] },
      { schemas: [PATCH], Operations: [{ op: 'move', path: 'a' }] },
      { schemas: [PATCH], Operations: [{ op: 'remove' }] },
    ])
      expect(
        scimType(() => patchOperations(body)),
        JSON.stringify(body),
      ).toBe('invalidSyntax')
  })
})
