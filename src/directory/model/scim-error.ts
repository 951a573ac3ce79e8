/**
 * A SCIM protocol error (RFC 7644 §3.12): its HTTP status, its `scimType` where the RFC names one,
 * and a detail safe to send. The SCIM scope's error handler turns it, and the service's own
 * errors, into the SCIM error body.
 */
export const SCIM_TYPES = [
  'invalidFilter',
  'tooMany',
  'uniqueness',
  'mutability',
  'invalidSyntax',
  'invalidPath',
  'noTarget',
  'invalidValue',
  'invalidVers',
  'sensitive',
] as const
export type ScimType = (typeof SCIM_TYPES)[number]

export class ScimError extends Error {
  constructor(
    readonly status: number,
    readonly scimType: ScimType | undefined,
    detail: string,
  ) {
    super(detail)
    this.name = 'ScimError'
  }
}

export const ERROR_SCHEMA = 'urn:ietf:params:scim:api:messages:2.0:Error'

export interface ScimErrorBody {
  schemas: [typeof ERROR_SCHEMA]
  status: string
  scimType?: ScimType
  detail: string
}

export function scimErrorBody(status: number, detail: string, scimType?: ScimType): ScimErrorBody {
  return { schemas: [ERROR_SCHEMA], status: String(status), ...(scimType ? { scimType } : {}), detail }
}
