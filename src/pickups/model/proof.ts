import { invalid } from '../../platform/kit/errors.js'
import type { HandOverRule } from '../../sites/index.js'

export const SIGNATURE_RULES = ['required', 'optional', 'off'] as const
export type SignatureRule = (typeof SIGNATURE_RULES)[number]

/** One site of a package's chain (its own site first, then its ancestors nearest first), as sites answers it. */
export type SiteProof = HandOverRule

/** What a hand-over needs: the strictest rule of its packages' sites, and whether a photo may stand in. */
export interface ProofNeeded {
  rule: SignatureRule
  photo: boolean
  /** The site whose rule is the strictest (named in the refusal), if any. */
  site?: string
  /** A parcel flagged SIGNATURE_REQUIRED (its tracking number): a signature, whatever the sites say. */
  flagged?: string
}

/**
 * A parcel flagged SIGNATURE_REQUIRED (issue 30) asks for the collector's own signature, drawn or
 * typed, whatever its site's rule: a photo does not stand in for it.
 */
export function withSignatureFlags(need: ProofNeeded, parcels: Array<{ trackingNumber: string; flags: string[] }>) {
  const flagged = parcels.find((p) => p.flags.includes('SIGNATURE_REQUIRED'))
  return flagged ? { rule: 'required' as const, photo: false, flagged: flagged.trackingNumber } : need
}

const STRICTNESS: Record<SignatureRule, number> = { off: 0, optional: 1, required: 2 }

/**
 * Each package's rule is its site's, else the nearest ancestor's; at the top (or with no site),
 * required and no photo (sites' signatureRule, migration 0039). The strictest of the packages
 * wins, and a photo replaces the signature only where every package's site allows it: one
 * hand-over, one proof, as strict as its strictest parcel.
 */
export function proofNeeded(chains: SiteProof[][]): ProofNeeded {
  let need: ProofNeeded = { rule: 'off', photo: chains.length > 0 }
  for (const chain of chains) {
    const rule = chain.find((s) => s.signatureRule !== null)?.signatureRule ?? 'required'
    const photo = chain.find((s) => s.photoProofAllowed !== null)?.photoProofAllowed ?? false
    if (STRICTNESS[rule] > STRICTNESS[need.rule]) need = { ...need, rule, site: chain[0]?.name }
    if (!photo) need.photo = false
  }
  return chains.length === 0 ? { rule: 'required', photo: false } : need
}

/**
 * A required hand-over needs a drawn signature (a SIGNATURE image), the collector's full name
 * typed as their signature, or, where allowed, a PHOTO of the collector or their ID. A photo
 * where none is allowed does not count (it is still attached). 400 naming `images`: where the
 * desk's signature pad reports.
 */
export function checkProof(need: ProofNeeded, given: { imageTypes: string[]; typedSignature?: string }): void {
  if (need.rule !== 'required') return
  if (given.imageTypes.includes('SIGNATURE') || given.typedSignature?.trim()) return
  if (need.photo && given.imageTypes.includes('PHOTO')) return
  const where = need.flagged ? ` for ${need.flagged} (flagged SIGNATURE_REQUIRED)` : need.site ? ` at ${need.site}` : ''
  throw invalid(
    'images',
    `A signature is required${where}: attach a SIGNATURE image or give typedSignature (the collector's full name)${need.photo ? ', or attach a PHOTO of the collector or their ID' : ''}.`,
  )
}
