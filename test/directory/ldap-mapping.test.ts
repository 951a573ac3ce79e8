import { describe, expect, it } from 'vitest'
import { DEFAULT_MAPPING, entryToPerson, requestedAttributes } from '../../src/directory/model/ldap-mapping.js'
import { departed, isGone } from '../../src/contacts/model/departure.js'

describe('LDAP entries → contacts', () => {
  it('maps an inetOrgPerson entry with the default mapping, attribute names ignoring case', () => {
    expect(
      entryToPerson(
        {
          dn: 'uid=ada,ou=people,dc=example,dc=org',
          entryUUID: '1b4e28ba-2fa1-11d2-883f-0016d3cca427',
          CN: ['Ada Lovelace', 'Ada'],
          mail: 'ada@example.org',
          telephonenumber: '+44 1',
          roomNumber: ' 4B ',
          o: [],
        },
        DEFAULT_MAPPING,
      ),
    ).toEqual({
      name: 'Ada Lovelace',
      externalId: '1b4e28ba-2fa1-11d2-883f-0016d3cca427',
      active: true,
      email: 'ada@example.org',
      phone: '+44 1',
      company: null,
      personalId: null,
      unit: '4B',
    })
  })

  it("reads Active Directory: objectGUID's byte order, a disabled account, a name from its parts", () => {
    const guid = Buffer.from('ba284e1ba12fd211883f0016d3cca427', 'hex')
    const p = entryToPerson(
      { dn: 'CN=x', objectGUID: guid, givenName: 'Alan', sn: 'Turing', userAccountControl: '514' },
      { externalId: 'objectGUID', name: 'displayName', givenName: 'givenName', familyName: 'sn' },
    )
    expect(p).toEqual({ name: 'Alan Turing', externalId: '1b4e28ba-2fa1-11d2-883f-0016d3cca427', active: false })
    expect(
      entryToPerson(
        { dn: 'CN=y', objectGUID: guid, cn: 'Y', userAccountControl: '512' },
        { externalId: 'objectGUID', name: 'cn' },
      ).active,
    ).toBe(true)
  })

  it('asks the directory for the mapped attributes only, and the account control', () => {
    expect(requestedAttributes({ externalId: 'objectGUID', name: 'displayName', email: 'mail' })).toEqual([
      'objectGUID',
      'displayName',
      'mail',
      'userAccountControl',
    ])
  })
})

describe('departures', () => {
  const day = '2026-05-10'
  it('a contact is gone when inactive or on and after its move-out date', () => {
    expect(isGone({ status: 'active', move_out: null }, day)).toBe(false)
    expect(isGone({ status: 'inactive', move_out: null }, day)).toBe(true)
    expect(isGone({ status: 'active', move_out: '2026-05-11' }, day)).toBe(false)
    expect(isGone({ status: 'active', move_out: '2026-05-10' }, day)).toBe(true)
    expect(isGone({ status: 'active', move_out: new Date('2026-05-01T00:00:00Z') }, day)).toBe(true)
  })
  it('a change departs only when it makes a present contact gone', () => {
    const at = new Date(`${day}T12:00:00Z`)
    const here = { status: 'active', move_out: null }
    expect(departed(here, { status: 'inactive' }, at)).toBe(true)
    expect(departed(here, { move_out: '2026-05-01' }, at)).toBe(true)
    expect(departed(here, { move_out: '2026-06-01' }, at)).toBe(false)
    expect(departed(here, { name: 'x' }, at)).toBe(false)
    expect(departed({ status: 'inactive', move_out: null }, { status: 'inactive' }, at)).toBe(false)
    expect(departed({ status: 'inactive', move_out: null }, { status: 'active' }, at)).toBe(false)
  })
})
