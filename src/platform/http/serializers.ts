import SerializerSelector from '@fastify/fast-json-stringify-compiler'

type Serializer = (doc: unknown) => string

// Per process: a response schema and the shared schemas it may name → its compiled serializer.
const compiled = new WeakMap<object, Map<string, Serializer>>()

/**
 * Fastify's own serializers (fast-json-stringify), compiled once per response schema per process
 * rather than once per app: the route schemas are module constants, so an app built again in the
 * same process (the tests build about 150, a process tier's second app, `secondProcess`) reuses
 * them. Compiling every response schema took about a second of CPU per app, a quarter of a test
 * file's set-up. A serializer depends on the schema and on the shared schemas its $refs name,
 * so both make the key; the shared set is named by its $ids (the schemas behind them are constants too).
 */
export const cachedSerializers: SerializerSelector.SerializerFactory = (externalSchemas, options) => {
  const compile = SerializerSelector.SerializerSelector()(externalSchemas, options)
  const shared = Object.keys(externalSchemas ?? {})
    .sort()
    .join('\0')
  return (route) => {
    const schema = route.schema as object
    let bySharedSet = compiled.get(schema)
    if (bySharedSet === undefined) compiled.set(schema, (bySharedSet = new Map<string, Serializer>()))
    let serialize = bySharedSet.get(shared)
    if (serialize === undefined) bySharedSet.set(shared, (serialize = compile(route)))
    return serialize
  }
}
