// Rewrites of the generated JSON Schemas that make the OpenAPI document read as clients expect.

type Json = Record<string, unknown>

/** Request schemas: a property with a default may be left out (ajv's useDefaults fills it in). */
export function optionalDefaults(schema: unknown): void {
  if (!schema || typeof schema !== 'object') return
  if (Array.isArray(schema)) return schema.forEach(optionalDefaults)
  const s = schema as Json
  const props = s.properties as Record<string, Json> | undefined
  if (props && Array.isArray(s.required)) {
    s.required = (s.required as string[]).filter((k) => !(props[k] && 'default' in props[k]))
    if ((s.required as string[]).length === 0) delete s.required
  }
  for (const [k, v] of Object.entries(s)) if (k !== 'default' && k !== 'examples') optionalDefaults(v)
}

/** TypeBox writes a union of literals as `anyOf: [{const}, …]`; clients and linters want `enum`. */
export function enumsFromConstants(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(enumsFromConstants)
  if (!node || typeof node !== 'object') return node
  const out: Json = {}
  for (const [k, v] of Object.entries(node))
    out[k] = k === 'default' || k === 'example' || k === 'examples' ? v : enumsFromConstants(v)
  const members = out.anyOf
  if (
    Array.isArray(members) &&
    members.length > 0 &&
    members.every((m) => isConstant(m) && m.type === (members[0] as Json).type)
  ) {
    const { anyOf: _, ...rest } = out
    return { ...rest, type: (members[0] as Json).type, enum: members.map(constantOf) }
  }
  return out
}

/** A shared schema's `$ref` by $id (`SiteRef`) as the document writes it (`#/components/schemas/SiteRef`). */
export function componentRefs(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(componentRefs)
  if (!node || typeof node !== 'object') return node
  return Object.fromEntries(
    Object.entries(node).map(([k, v]) => [
      k,
      k === '$ref' && typeof v === 'string' && !v.startsWith('#') ? `#/components/schemas/${v}` : componentRefs(v),
    ]),
  )
}

/** `{const: x}` or, as @fastify/swagger writes it, `{enum: [x]}`. */
function isConstant(m: unknown): m is Json & { type?: string } {
  if (!m || typeof m !== 'object') return false
  const one = 'const' in m || (Array.isArray((m as Json).enum) && ((m as Json).enum as unknown[]).length === 1)
  return (
    one &&
    Object.keys(m).every((k) => k === 'const' || k === 'enum' || k === 'type' || k === 'description' || k === 'title')
  )
}

function constantOf(m: unknown): unknown {
  const c = m as Json
  return 'const' in c ? c.const : (c.enum as unknown[])[0]
}
