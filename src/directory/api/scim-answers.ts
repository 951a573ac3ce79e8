import type { FastifyError, FastifyReply } from 'fastify'
import { AppError, lookupError, ValidationErrors } from '../../platform/kit/errors.js'
import { ScimError, scimErrorBody, type ScimType } from '../model/scim-error.js'

// SCIM's own error model at the HTTP edge (RFC 7644 §3.12): every refusal under /scim/v2, the
// service's, the validator's and the framework's, in SCIM's body and media type (scim-routes.ts).

export const SCIM_CONTENT_TYPE = 'application/scim+json; charset=utf-8'

export function sendError(reply: FastifyReply, status: number, detail: string, scimType?: ScimType) {
  return reply
    .code(status)
    .type(SCIM_CONTENT_TYPE)
    .send(scimErrorBody(status, detail, scimType))
}

/** The service's errors in SCIM's terms (RFC 7644 §3.12): a 409 is `uniqueness`, a 400 `invalidValue`. */
export function toScim(error: FastifyError | Error): { status: number; detail: string; scimType?: ScimType } {
  if (error instanceof ScimError) return { status: error.status, detail: error.message, scimType: error.scimType }
  if (error instanceof AppError) {
    const e = lookupError(error.code)
    const scimType =
      e.status === 409
        ? 'uniqueness'
        : error.code === 'MALFORMED_BODY'
          ? 'invalidSyntax'
          : e.status === 400
            ? 'invalidValue'
            : undefined
    return { status: e.status, detail: error.message, ...(scimType ? { scimType } : {}) }
  }
  if (error instanceof ValidationErrors)
    return {
      status: 400,
      scimType: 'invalidValue',
      detail: error.items.map((i) => `${i.field}: ${i.description}`).join(' '),
    }
  const fe = error as FastifyError
  if (fe.validation)
    return {
      status: 400,
      scimType: 'invalidSyntax',
      detail: fe.validation.map((v) => `${v.instancePath || fe.validationContext} ${v.message}`).join('; '),
    }
  if (fe.statusCode && fe.statusCode < 500)
    return { status: fe.statusCode, scimType: fe.statusCode === 400 ? 'invalidSyntax' : undefined, detail: fe.message }
  return { status: 500, detail: 'Unexpected error.' }
}
