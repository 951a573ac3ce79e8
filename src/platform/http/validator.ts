import { Ajv, type ErrorObject, type Options, type ValidateFunction } from 'ajv'
import addFormats from 'ajv-formats'
import type { FastifySchemaCompiler } from 'fastify'

/**
 * Two validators. Query strings, params and headers arrive as text, so their values are coerced
 * to the schema's types ("25" → 25). JSON bodies are not coerced: a number sent where a string
 * belongs is the client's mistake and gets a 400 naming the field, not a silent conversion.
 * Both report every problem at once (one errors[] item per field), within bounds (boundedProblems).
 */
const base: Options = { useDefaults: true, allErrors: true, strict: false, discriminator: true }
const coercing = addFormats.default(new Ajv({ ...base, coerceTypes: 'array', removeAdditional: false }))
// Nothing is silently dropped: schemas that care say additionalProperties: false and refuse unknown
// fields with a 400 naming them (removing them would also corrupt data tried against a union's branches).
const strictBodies = addFormats.default(new Ajv({ ...base, coerceTypes: false, removeAdditional: false }))
// The same, stopping at the first problem: every request is checked with these first, so the work
// of a bad request is bounded (ajv's allErrors has no ceiling: a 1 MiB array of wrong-typed items
// made 524,288 error objects, a 102 MB answer and 500 MB of memory).
const coercingFirst = addFormats.default(
  new Ajv({ ...base, allErrors: false, coerceTypes: 'array', removeAdditional: false }),
)
const strictBodiesFirst = addFormats.default(
  new Ajv({ ...base, allErrors: false, coerceTypes: false, removeAdditional: false }),
)

/** At most this many problems are listed in one response, then one item saying how many more. */
export const MAX_LISTED_PROBLEMS = 50
/** Inputs of at most this many values get every problem listed; larger ones only their first. */
export const MAX_VALUES_FULLY_CHECKED = 2_000
/** ajv-style keyword of the closing item ("…and N more problems"); the error handler words it. */
export const MORE_PROBLEMS = 'x-more-problems'

/** Schema annotation: this part may carry U+0000 (it never reaches the database as such). */
export const ALLOW_NUL = 'x-allow-nul'

export const validatorCompiler: FastifySchemaCompiler<unknown> = ({ schema, httpPart }) => {
  const validate = (httpPart === 'body' ? strictBodiesFirst : coercingFirst).compile(schema as object)
  let validateAll: ValidateFunction | undefined
  // A raw scan may hold any control character, NUL included; the route cleans it before any query.
  const allowNul = (schema as Record<string, unknown>)[ALLOW_NUL] === true
  return (data: unknown) => {
    if (!validate(data)) {
      const all = () => (validateAll ??= (httpPart === 'body' ? strictBodies : coercing).compile(schema as object))
      return {
        error: Object.assign(new Error('validation failed'), { validation: boundedProblems(data, validate, all) }),
      }
    }
    const unstorable = unstorableText(data, '', allowNul, [])
    if (unstorable.length > MAX_LISTED_PROBLEMS) {
      const note = {
        instancePath: '',
        keyword: MORE_PROBLEMS,
        params: {},
        message: `More than ${MAX_LISTED_PROBLEMS} values hold text that cannot be stored: checking stopped there.`,
      }
      return {
        error: Object.assign(new Error('validation failed'), {
          validation: [...unstorable.slice(0, MAX_LISTED_PROBLEMS), note],
        }),
      }
    }
    if (unstorable.length > 0)
      return { error: Object.assign(new Error('validation failed'), { validation: unstorable }) }
    return { value: data }
  }
}

const NUL_MESSAGE = 'must not contain the NUL character (U+0000)'
const SURROGATE_MESSAGE =
  'must not contain a lone UTF-16 surrogate (U+D800 to U+DFFF without its pair): it is not a character'
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
function unstorableText(
  value: unknown,
  path: string,
  allowNul: boolean,
  out: Array<{ instancePath: string; keyword: string; message: string; params: object }>,
) {
  // One past the listing bound is enough to say that more were found (capped); the walk stops there.
  if (out.length > MAX_LISTED_PROBLEMS) return out
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

/**
 * The problems of an input the first-problem validator refused, listed in full only when the input
 * is small enough for that to be cheap (the work and the list then grow with at most
 * MAX_VALUES_FULLY_CHECKED values); a larger input gets its first problem and a note that
 * checking stopped there. Either way at most MAX_LISTED_PROBLEMS items, then one saying how many more.
 */
function boundedProblems(
  data: unknown,
  first: ValidateFunction,
  all: () => ValidateFunction,
): Array<Partial<ErrorObject>> {
  if (countValues(data, MAX_VALUES_FULLY_CHECKED) > MAX_VALUES_FULLY_CHECKED) {
    return [
      ...(first.errors ?? []),
      {
        instancePath: '',
        keyword: MORE_PROBLEMS,
        params: {},
        message: `The request has more than ${MAX_VALUES_FULLY_CHECKED} values: checking stopped at its first problem.`,
      },
    ]
  }
  const validateAll = all()
  validateAll(data)
  return capped(validateAll.errors ?? first.errors ?? [])
}

/** At most MAX_LISTED_PROBLEMS problems, then one item saying how many more were found. */
function capped<T extends Partial<ErrorObject>>(problems: T[]): Array<T | Partial<ErrorObject>> {
  if (problems.length <= MAX_LISTED_PROBLEMS) return problems
  const more = problems.length - MAX_LISTED_PROBLEMS
  return [
    ...problems.slice(0, MAX_LISTED_PROBLEMS),
    {
      instancePath: '',
      keyword: MORE_PROBLEMS,
      params: { more },
      message: `…and ${more} more problem${more === 1 ? '' : 's'} not listed.`,
    },
  ]
}

/** How many values (scalars, arrays, objects) the input holds, or `ceiling + 1` as soon as it is sure there are more. */
function countValues(value: unknown, ceiling: number): number {
  let count = 0
  const stack: unknown[] = [value]
  while (stack.length > 0) {
    const v = stack.pop()
    if (++count > ceiling) return ceiling + 1
    const children = Array.isArray(v) ? v : v !== null && typeof v === 'object' ? Object.values(v) : undefined
    if (!children) continue
    if (count + stack.length + children.length > ceiling) return ceiling + 1
    for (const child of children) stack.push(child)
  }
  return count
}
