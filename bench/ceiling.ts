import Fastify from 'fastify'

// The HTTP ceiling: a bare Fastify route returning a small constant JSON, in its own process,
// so every figure of the service can be read as a fraction of what the framework itself does.
const app = Fastify({ logger: false })
app.get('/', async () => ({ ok: true, service: 'ceiling' }))
await app.listen({ port: Number(process.env.PORT ?? 0), host: '127.0.0.1' })
process.stdout.write(`READY ${(app.server.address() as { port: number }).port}\n`)
