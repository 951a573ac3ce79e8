import { describe, expect, it } from 'vitest'
import { checkProof, proofNeeded, type SiteProof } from '../../src/pickups/model/proof.js'

// The pure rule behind POST /api/v1/pickups' signature check (route tests: pickup-proof.test.ts).
const site = (name: string, signatureRule: SiteProof['signatureRule'], photoProofAllowed: boolean | null = null) => ({
  siteId: `s_${name}`,
  name,
  signatureRule,
  photoProofAllowed,
})

describe('proofNeeded', () => {
  it('takes each package’s nearest rule, required at the top; the strictest package wins', () => {
    expect(proofNeeded([[site('Shelf', null), site('Hall', null)]])).toEqual({
      rule: 'required',
      photo: false,
      site: 'Shelf',
    })
    expect(proofNeeded([[site('Shelf', null), site('Hall', 'off')]])).toEqual({ rule: 'off', photo: false })
    expect(proofNeeded([[site('Shelf', 'optional'), site('Hall', 'off')]]).rule).toBe('optional')
    expect(proofNeeded([[site('Lobby', 'off')], [site('Vault', 'required'), site('Hall', 'off')]])).toMatchObject({
      rule: 'required',
      site: 'Vault',
    })
    // No site at all: the top's default.
    expect(proofNeeded([[]])).toMatchObject({ rule: 'required', photo: false })
  })

  it('allows a photo only where every package’s site allows one (inherited like the rule)', () => {
    expect(proofNeeded([[site('Shelf', null), site('Hall', 'required', true)]]).photo).toBe(true)
    expect(proofNeeded([[site('Shelf', null, false), site('Hall', 'required', true)]]).photo).toBe(false)
    expect(proofNeeded([[site('A', null, true)], [site('B', null)]]).photo).toBe(false)
  })
})

describe('checkProof', () => {
  const required = { rule: 'required' as const, photo: false, site: 'Hall' }
  it('takes a drawn signature or a typed name; a photo only where allowed; nothing where not required', () => {
    expect(() => checkProof(required, { imageTypes: ['SIGNATURE'] })).not.toThrow()
    expect(() => checkProof(required, { imageTypes: [], typedSignature: 'Ada Lovelace' })).not.toThrow()
    expect(() => checkProof(required, { imageTypes: ['PHOTO'] })).toThrow(/A signature is required at Hall/)
    expect(() => checkProof({ ...required, photo: true }, { imageTypes: ['PHOTO'] })).not.toThrow()
    expect(() => checkProof(required, { imageTypes: [], typedSignature: '  ' })).toThrow()
    expect(() => checkProof({ rule: 'optional', photo: false }, { imageTypes: [] })).not.toThrow()
    expect(() => checkProof({ rule: 'off', photo: false }, { imageTypes: [] })).not.toThrow()
  })
})
