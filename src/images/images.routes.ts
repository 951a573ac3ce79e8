import { Type } from '@sinclair/typebox'
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { errorResponses } from '../http/schemas.js'
import type { ImagesService } from './images.service.js'
import { outcomeOf } from '../idempotency/idempotency.hooks.js'

const tags = ['images']
const security = [{ bearerAuth: [] }]
const ImageIdParams = Type.Object({ imageId: Type.String({ pattern: '^[a-z0-9_]{1,64}$' }) })

export const imagesRoutes: FastifyPluginAsyncTypebox<{ images: ImagesService; maxBytes: number }> = async (
  app,
  { images, maxBytes },
) => {
  app.post(
    '/api/v1/packages/images',
    {
      // base64 inflates by 4/3; leave room for the data-URL prefix and JSON around it.
      bodyLimit: Math.ceil((maxBytes * 4) / 3) + 4096,
      // PB-REFERENCE §11: clients upload without a Content-Type header; the body is JSON all the same.
      onRequest: (request, _reply, done) => {
        request.headers['content-type'] ??= 'application/json'
        done()
      },
      schema: {
        tags,
        security,
        summary: 'Upload an image (temporary until a package takes it)',
        description: `Body \`{base64: "data:image/png;base64,…"}\` (png, jpeg, gif, webp), read as JSON also when no \`Content-Type\` header is sent. The bytes must match the declared type. At most ${maxBytes} bytes decoded (413). The image expires after 24 h unless attached to a package through \`images[].tempURL\` in Add or Update.`,
        body: Type.Object({ base64: Type.String({ minLength: 1 }) }, { additionalProperties: false }),
        response: {
          200: Type.Object({ imageId: Type.String(), tempURL: Type.String(), contentType: Type.String() }),
          ...errorResponses(400, 413),
        },
      },
    },
    async (request, reply) => images.upload(request.tenant.subId, request.body.base64, outcomeOf(request, reply, 200)),
  )

  const serve = async (subId: string, imageId: string, reply: import('fastify').FastifyReply) => {
    // Streamed part by part from the store: a download holds a part, never the whole image.
    const img = await images.open(subId, imageId)
    return reply
      .header('cache-control', 'private, max-age=3600')
      .header('etag', `"${img.sha256}"`)
      .header('content-length', img.size)
      .type(img.contentType)
      .send(img.stream)
  }
  const getSchema = (summary: string) => ({
    tags,
    security,
    summary,
    params: ImageIdParams,
    response: {
      200: Type.Unsafe<Buffer>({ type: 'string', format: 'binary', description: 'The image bytes.' }),
      ...errorResponses(404),
    },
  })
  app.get('/api/v1/packages/images/:imageId', { schema: getSchema('Image bytes') }, async (request, reply) =>
    serve(request.tenant.subId, request.params.imageId, reply),
  )
  app.get('/temp/images/:imageId', { schema: getSchema('Image bytes by tempURL') }, async (request, reply) =>
    serve(request.tenant.subId, request.params.imageId, reply),
  )
}
