import type { TSchema } from '@sinclair/typebox'
import { Ajv } from 'ajv'
import addFormats from 'ajv-formats'
import { SiteRefSchema } from '../../src/sites/api/schemas.js'

/** A validator for a schema of the packages domain as the HTTP layer checks it (ajv with formats, SiteRef resolvable): its errors, or [] . */
export function validatorOf(schema: TSchema): (value: unknown) => unknown[] {
  const ajv = addFormats.default(new Ajv({ strict: false, allErrors: true }))
  ajv.addSchema(SiteRefSchema)
  const check = ajv.compile(schema)
  return (value) => (check(value) ? [] : [...(check.errors ?? [])])
}
