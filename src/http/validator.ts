import { Ajv, type Options } from 'ajv'
import addFormats from 'ajv-formats'
import type { FastifySchemaCompiler } from 'fastify'

/**
 * Two validators. Query strings, params and headers arrive as text, so their values are coerced
 * to the schema's types ("25" → 25). JSON bodies are not coerced: a number sent where a string
 * belongs is the client's mistake and gets a 400 naming the field, not a silent conversion.
 * Both report every problem at once (one errors[] item per field).
 */
const base: Options = { useDefaults: true, allErrors: true, strict: false, discriminator: true }
const coercing = addFormats.default(new Ajv({ ...base, coerceTypes: 'array', removeAdditional: false }))
// Nothing is silently dropped: schemas that care say additionalProperties: false and refuse unknown
// fields with a 400 naming them (removing them would also corrupt data tried against a union's branches).
const strictBodies = addFormats.default(new Ajv({ ...base, coerceTypes: false, removeAdditional: false }))

export const validatorCompiler: FastifySchemaCompiler<unknown> = ({ schema, httpPart }) => {
  const validate = (httpPart === 'body' ? strictBodies : coercing).compile(schema as object)
  return (data: unknown) => {
    if (validate(data)) return { value: data }
    return { error: Object.assign(new Error('validation failed'), { validation: validate.errors }) }
  }
}
