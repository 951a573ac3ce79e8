import Fastify from 'fastify'

// The HTTP ceiling of the image scenarios: the same bytes through a bare Fastify route, in its
// own process. POST takes the same JSON data URL and keeps the decoded bytes in memory; GET sends
// them back. No auth, no validation, no database, no store: what the framework itself does.
const app = Fastify({ logger: false, bodyLimit: 64 * 1024 * 1024 })
const kept = new Map<string, Buffer>()
let n = 0
app.post<{ Body: { base64: string } }>('/img', async (request) => {
  const id = `img_${++n}`
  kept.set(id, Buffer.from(request.body.base64.slice(request.body.base64.indexOf(',') + 1), 'base64'))
  if (kept.size > 64) kept.delete(kept.keys().next().value!)
  return { imageId: id }
})
app.get<{ Params: { id: string } }>('/img/:id', async (request, reply) => {
  const bytes = kept.get(request.params.id)
  if (!bytes) return reply.code(404).send()
  return reply.type('image/jpeg').send(bytes)
})
await app.listen({ port: Number(process.env.PORT ?? 0), host: '127.0.0.1' })
process.stdout.write(`READY ${(app.server.address() as { port: number }).port}\n`)
