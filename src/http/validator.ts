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
    const unstorable = unstorableText(data, '', allowNul, [])
    if (unstorable.length > 0) return { error: Object.assign(new Error('validation failed'), { validation: unstorable }) }
    return { value: data }
  }
}

const NUL_MESSAGE = 'must not contain the NUL character (U+0000)'
const SURROGATE_MESSAGE = 'must not contain a lone UTF-16 surrogate (U+D800 to U+DFFF without its pair): it is not a character'
// A high surrogate not followed by a low one, or a low one not preceded by a high one.
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/

/** The first reason PostgreSQL could not store `text` (as text or inside jsonb), if any. */
function unstorableReason(text: string, allowNul: boolean): string | undefined {
  if (!allowNul && text.includes('\u0000')) return NUL_MESSAGE
  if (LONE_SURROGATE.test(text)) return SURROGATE_MESSAGE
  return undefined
}

/**
 * Where text PostgreSQL cannot store hides in the input (values and keys): U+0000, and lone UTF-16
 * surrogates (JSON's "\ud800" parses to one; jsonb refuses it with 22P02). JSON and URLs can carry
 * both; left alone they reach the database as a 500. Each item is an ajv-style error naming the path.
 */
function unstorableText(value: unknown, path: string, allowNul: boolean, out: Array<{ instancePath: string; keyword: string; message: string; params: object }>) {
  if (typeof value === 'string') {
    const message = unstorableReason(value, allowNul)
    if (message) out.push({ instancePath: path, keyword: 'text', message, params: {} })
  } else if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) unstorableText(value[i], `${path}/${i}`, allowNul, out)
  } else if (value !== null && typeof value === 'object') {
    for (const [k, v] of Object.entries(value)) {
      const child = `${path}/${k.replace(/~/g, '~0').replace(/\//g, '~1')}`
      const message = unstorableReason(k, allowNul)
      if (message) out.push({ instancePath: child, keyword: 'text', message, params: {} })
      else unstorableText(v, child, allowNul, out)
    }
  }
  return out
}
