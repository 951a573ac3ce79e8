import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { errorResponses } from '../http/schemas.js'
import { DecodeQuerySchema } from './scan.schemas.js'
import type { ScanService } from './scan.service.js'
import type { createScanImageService } from './scan-image.service.js'
import { Type } from '@sinclair/typebox'

const FoundSchema = Type.Object({
  symbology: Type.String(),
  text: Type.String({ description: 'The raw text, control characters kept.' }),
  isGS1: Type.Boolean(),
  aimId: Type.Optional(Type.String()),
  position: Type.Object({ x: Type.Number(), y: Type.Number(), width: Type.Number(), height: Type.Number() }),
  decoded: Type.Optional(Type.Ref('DecodeResult')),
  error: Type.Optional(Type.String()),
})

export const scanRoutes: FastifyPluginAsyncTypebox<{ scan: ScanService; scanImage: ReturnType<typeof createScanImageService>; maxBytes: number }> = async (app, { scan, scanImage, maxBytes }) => {
  app.get('/api/v1/packages/tracking/decode', {
    schema: {
      tags: ['decode'],
      security: [{ bearerAuth: [] }],
      summary: 'Decode a scanned barcode',
      description: [
        'Turns the raw text of a 1D or 2D scan (UPS MaxiCode, FedEx PDF417, USPS IMpb GS1-128/DataMatrix, Amazon DataMatrix, QR) into the tracking number, carrier, service, recipient and destination.',
        'Accepts AIM symbology prefixes (`]C1`, `]d2`, …), ISO/IEC 15434 envelopes (formats 01, 05, 06, 07, 09), GS1 element strings with FNC1 as GS, dropped, or in parentheses.',
        '`decodedCarriers` lists every candidate, ranked, each with `checkDigitValid`; `package.carrier` is set only when the data names one carrier beyond doubt.',
        'When the subscription already holds the number: `packageId`, `currentStatus`, `currentLocation`. When the ship-to name matches exactly one active RECEIVER/ALL contact (case, accents and punctuation ignored; narrowed by company): `receiver.contactId`; several: `receiverCandidates`.',
      ].join('\n\n'),
      querystring: DecodeQuerySchema,
      response: { 200: Type.Ref('DecodeResult'), ...errorResponses(400) },
    },
  }, async (request) => scan.decode(request.tenant.subId, request.query.trackingNumber, { expectedPackage: request.query.expectedPackage, editflow: request.query.editflow }))

  app.post('/api/v1/packages/tracking/decode-image', {
    bodyLimit: Math.ceil((maxBytes * 4) / 3) + 4096,
    schema: {
      tags: ['decode'],
      security: [{ bearerAuth: [] }],
      summary: 'Find and decode every barcode in a label photo',
      description: 'Body: `{base64: "data:image/jpeg;base64,…"}` (as for image upload) or `{imageId}` of an uploaded image. PNG, JPEG and GIF are read (WebP is accepted for storage but cannot be decoded: 400). Each barcode found gets its symbology, raw text, position and the same decode result as the scan endpoint. Linear codes read best within about ±10° of level; DataMatrix and QR at any angle; MaxiCode only from an upright crop.',
      body: Type.Object({ base64: Type.Optional(Type.String({ minLength: 1 })), imageId: Type.Optional(Type.String({ pattern: '^[a-z0-9_]{1,64}$' })) }, { additionalProperties: false }),
      response: { 200: Type.Object({ barcodes: Type.Array(FoundSchema) }), ...errorResponses(400, 404, 413) },
    },
  }, async (request) => scanImage.decodeImage(request.tenant.subId, request.body))
}
