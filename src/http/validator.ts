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

/** Schema annotation: this part may carry U+0000 (it never reaches the database as such). */
export const ALLOW_NUL = 'x-allow-nul'

export const validatorCompiler: FastifySchemaCompiler<unknown> = ({ schema, httpPart }) => {
  const validate = (httpPart === 'body' ? strictBodies : coercing).compile(schema as object)
  // A raw scan may hold any control character, NUL included; the route cleans it before any query.
  const allowNul = (schema as Record<string, unknown>)[ALLOW_NUL] === true
  return (data: unknown) => {
    if (!validate(data)) return { error: Object.assign(new Error('validation failed'), { validation: validate.errors }) }
    const nul = allowNul ? [] : nulPaths(data, '', [])
    if (nul.length > 0) {
      return { error: Object.assign(new Error('validation failed'), { validation: nul.map((instancePath) => ({ instancePath, keyword: 'nul', message: 'must not contain the NUL character (U+0000)', params: {} })) }) }
    }
    return { value: data }
  }
}

/**
 * Where a U+0000 hides in the input (values and keys). JSON and URLs can carry it, PostgreSQL text
 * cannot: left alone it reaches the database as a 500. Each path is an ajv-style instancePath.
 */
function nulPaths(value: unknown, path: string, out: string[]): string[] {
  if (typeof value === 'string') {
    if (value.includes('\u0000')) out.push(path)
  } else if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) nulPaths(value[i], `${path}/${i}`, out)
  } else if (value !== null && typeof value === 'object') {
    for (const [k, v] of Object.entries(value)) {
      const child = `${path}/${k.replace(/~/g, '~0').replace(/\//g, '~1')}`
      if (k.includes('\u0000')) out.push(child)
      else nulPaths(v, child, out)
    }
  }
  return out
}
