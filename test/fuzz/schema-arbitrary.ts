import fc from 'fast-check'

/** A JSON Schema node as the OpenAPI document spells it (3.1: JSON Schema 2020-12, TypeBox's output). */
export type Schema = Record<string, unknown>

/** Strings a property of this name should often hold so that requests get past 404s to the services. */
export type KnownValues = Record<string, readonly string[]>

/**
 * Valid values of a schema (as far as a schema says: the services check more). Recursion and sizes
 * are bounded so that one value stays small; huge and hostile values come from the mutations.
 */
export function arbitraryOf(
  schema: Schema,
  components: Record<string, Schema>,
  known: KnownValues,
  depth = 0,
  name = '',
): fc.Arbitrary<unknown> {
  if (typeof schema.$ref === 'string')
    return arbitraryOf(components[schema.$ref.split('/').pop()!] ?? {}, components, known, depth, name)
  if ('const' in schema) return fc.constant(schema.const)
  if (Array.isArray(schema.enum)) return fc.constantFrom(...(schema.enum as unknown[]))
  const branches = (schema.anyOf ?? schema.oneOf) as Schema[] | undefined
  if (branches?.length) return fc.oneof(...branches.map((b) => arbitraryOf({ ...b }, components, known, depth, name)))
  if (Array.isArray(schema.allOf) && schema.allOf.length)
    return arbitraryOf(schema.allOf[0] as Schema, components, known, depth, name)
  const type = Array.isArray(schema.type) ? fc.constantFrom(...(schema.type as string[])) : undefined
  if (type) return type.chain((t) => arbitraryOf({ ...schema, type: t }, components, known, depth, name))
  switch (schema.type ?? (schema.properties ? 'object' : schema.items ? 'array' : undefined)) {
    case 'string':
      return stringOf(schema, known[name])
    case 'integer':
      return fc.integer({
        min: Math.max(Number(schema.minimum ?? -1000), -1e6),
        max: Math.min(Number(schema.maximum ?? 1000), 1e6),
      })
    case 'number':
      return fc.double({
        min: Number(schema.minimum ?? -1e6),
        max: Number(schema.maximum ?? 1e6),
        noNaN: true,
        noDefaultInfinity: true,
      })
    case 'boolean':
      return fc.boolean()
    case 'null':
      return fc.constant(null)
    case 'array': {
      if (depth > 4) return fc.constant([])
      const items = arbitraryOf((schema.items as Schema) ?? {}, components, known, depth + 1, name)
      return fc.array(items, {
        minLength: Number(schema.minItems ?? 0),
        maxLength: Math.max(Number(schema.minItems ?? 0), Math.min(Number(schema.maxItems ?? 4), 4)),
      })
    }
    case 'object': {
      const props = (schema.properties ?? {}) as Record<string, Schema>
      const required = new Set((schema.required ?? []) as string[])
      if (depth > 4) return fc.constant({})
      const entries = Object.fromEntries(
        Object.entries(props).map(([k, s]) => [k, arbitraryOf(s, components, known, depth + 1, k)]),
      )
      const record = fc.record(entries, { requiredKeys: [...required].filter((k) => k in props) })
      const extra = schema.additionalProperties
      if (extra && typeof extra === 'object' && Object.keys(props).length === 0) {
        return fc.dictionary(
          fc.string({ minLength: 1, maxLength: 12 }),
          arbitraryOf(extra as Schema, components, known, depth + 1),
          { maxKeys: 4 },
        )
      }
      return record
    }
    default:
      return fc.jsonValue({ maxDepth: 2 })
  }
}

function stringOf(schema: Schema, known: readonly string[] | undefined): fc.Arbitrary<string> {
  const min = Number(schema.minLength ?? 0)
  const max = Math.min(Number(schema.maxLength ?? 40), 40)
  let base: fc.Arbitrary<string>
  if (schema.format === 'date-time')
    base = fc
      .date({ min: new Date('2000-01-01'), max: new Date('2040-01-01'), noInvalidDate: true })
      .map((d) => d.toISOString())
  else if (schema.format === 'date')
    base = fc
      .date({ min: new Date('2000-01-01'), max: new Date('2040-01-01'), noInvalidDate: true })
      .map((d) => d.toISOString().slice(0, 10))
  else if (schema.format === 'uri') base = fc.webUrl()
  else if (schema.format === 'email') base = fc.emailAddress()
  else if (typeof schema.pattern === 'string' && patternArbitrary(schema.pattern))
    base = patternArbitrary(schema.pattern)!.filter((s) => s.length >= min && s.length <= Math.max(max, min))
  else base = fc.string({ minLength: min, maxLength: Math.max(max, min) })
  return known?.length
    ? fc.oneof({ arbitrary: fc.constantFrom(...known), weight: 3 }, { arbitrary: base, weight: 1 })
    : base
}

function patternArbitrary(pattern: string): fc.Arbitrary<string> | undefined {
  try {
    return fc.stringMatching(new RegExp(pattern))
  } catch {
    return undefined
  }
}
