import { Type, type Static, type TSchema } from '@sinclair/typebox'

/** CONTRACT §1: the body of every 4xx/5xx of the receiving and webhook interfaces but 401. */
export const ErrorItemSchema = Type.Object({
  errorCode: Type.Union([
    Type.Literal('validation_error'),
    Type.Literal('not_found'),
    Type.Literal('already_exists'),
    Type.Literal('internal_error'),
  ]),
  errorDescription: Type.String(),
  additionalCode: Type.String({ description: 'Stable code per error kind; see the catalogue in the API description.' }),
  additionalInfo: Type.String({ description: 'More about the error; empty when there is nothing more.' }),
  additionalParameters: Type.String({ description: 'The field at fault, as a dot path; empty when no one field is.' }),
  correlationID: Type.String(),
})
export const ErrorBodySchema = Type.Object(
  { errors: Type.Array(ErrorItemSchema) },
  { $id: 'ErrorBody', title: 'ErrorBody' },
)
export type ErrorBody = Static<typeof ErrorBodySchema>

export const UnauthorizedSchema = Type.Object(
  { message: Type.String() },
  { $id: 'Unauthorized', title: 'Unauthorized' },
)

const errorRef = Type.Ref('ErrorBody')

/** The error responses a protected JSON route can give, for its schema (and so the OpenAPI document). */
export function errorResponses(...statuses: Array<400 | 404 | 409 | 412 | 413 | 415 | 429>): Record<number, TSchema> {
  const out: Record<number, TSchema> = {
    401: Type.Ref('Unauthorized', { description: 'Missing, invalid or expired bearer token (RFC 6750).' }),
    403: Type.Ref('Unauthorized', {
      description:
        'The token lacks the psapi scope; or, with the console session cookie, a write without the X-CSRF-Token header, or a clerk on an admin route.',
    }),
    500: Type.Ref('ErrorBody', { description: 'Unexpected error; the body never says why.' }),
  }
  for (const s of statuses) out[s] = errorRef
  return out
}

/** Largest offset or page a list takes: past it the database would refuse the arithmetic (a 500). */
/**
 * A language tag as emails are chosen by: ISO 639 language, optionally an ISO 3166 region (`fr`,
 * `pt-BR`). Shared by the notification settings and the contacts.
 */
export const LANGUAGE_PATTERN = '^[a-z]{2,3}(-[A-Z]{2})?$'

export const MAX_OFFSET = 2_147_483_647

/** `skip` of the typeahead lists. */
export const SkipSchema = Type.Integer({ minimum: 0, maximum: MAX_OFFSET, default: 0, description: 'Rows to skip.' })
/** `page` (from 1) of the paged lists; with the largest size its offset stays within MAX_OFFSET. */
export const PageSchema = Type.Integer({ minimum: 1, maximum: 10_000_000, default: 1, description: 'From 1.' })
