import { Type } from '@sinclair/typebox'
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import type { FastifyReply, FastifyRequest } from 'fastify'
import { errorResponses } from '../../platform/http/schemas.js'
import type { ImagesService } from '../service.js'
import { outcomeOf } from '../../platform/idempotency/hooks.js'

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

  /**
   * HEAD and a GET with If-None-Match are answered from the image's row (304 when the tag names the
   * current bytes); only a GET that needs the bytes opens the store (an S3 GetObject, a read of image_blobs).
   */
  const serve = async (request: FastifyRequest, reply: FastifyReply, imageId: string) => {
    const subId = request.tenant.subId
    const ifNoneMatch = request.headers['if-none-match']
    reply.header('cache-control', 'private, max-age=3600')
    if (request.method === 'HEAD' || ifNoneMatch !== undefined) {
      const meta = await images.describe(subId, imageId)
      const etag = `"${meta.sha256}"`
      reply.header('etag', etag)
      if (ifNoneMatch?.split(/\s*,\s*/).some((tag) => tag === etag || tag === `W/${etag}` || tag === '*'))
        return reply.code(304).send()
      if (request.method === 'HEAD') return reply.header('content-length', meta.size).type(meta.contentType).send()
    }
    // Streamed part by part from the store: a download holds a part, never the whole image.
    const img = await images.open(subId, imageId)
    return reply
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
      200: Type.Unsafe<Buffer>({
        type: 'string',
        format: 'binary',
        description:
          'The image bytes, with `ETag` (their SHA-256) and `Cache-Control: private, max-age=3600`. HEAD answers the same headers without reading the bytes.',
      }),
      304: Type.Null({ description: 'Not modified: `If-None-Match` names the current bytes. No body.' }),
      ...errorResponses(404),
    },
  })
  // HEAD declared before its GET, so Fastify does not add its own (which would run the GET and read the
  // whole stream to discard it). Described with the GET in the document, as every HEAD is.
  for (const [url, summary] of [
    ['/api/v1/packages/images/:imageId', 'Image bytes'],
    ['/temp/images/:imageId', 'Image bytes by tempURL'],
  ] as const) {
    app.head(url, { schema: { hide: true, params: ImageIdParams } }, (request, reply) =>
      serve(request, reply, request.params.imageId),
    )
    app.get(url, { schema: getSchema(summary) }, (request, reply) => serve(request, reply, request.params.imageId))
  }
}
