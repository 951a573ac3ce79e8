import SerializerSelector from '@fastify/fast-json-stringify-compiler'
import type { FastifyReply } from 'fastify'

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

/**
 * For a route whose documented answer is one of several shapes (an anyOf in the OpenAPI document):
 * the handler names the shape it answers with, and that shape's serializer writes the answer.
 * Left to the union, fast-json-stringify chooses a shape by validating the answer against each in
 * turn (ajv, the whole record, on every request). Written here, before the reply is sent: a
 * serializer that throws is an error like any other, and nothing else of the reply is changed.
 */
export function sendAs(reply: FastifyReply, shape: object, answer: unknown): FastifyReply {
  const serialize = reply.compileSerializationSchema(shape as Record<string, unknown>, '200')
  return reply.type('application/json; charset=utf-8').send(serialize(answer as Record<string, unknown>))
}
