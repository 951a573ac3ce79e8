import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { errorResponses } from '../../platform/http/schemas.js'
import { DecodeQuerySchema } from './schemas.js'
import type { ScanService } from '../service.js'
import type { createScanImageService } from '../scan-image-service.js'
import { Type } from '@sinclair/typebox'
import { LabelAnswerSchema } from './label-schemas.js'

const FoundSchema = Type.Object({
  symbology: Type.String(),
  text: Type.String({ description: 'The raw text, control characters kept.' }),
  isGS1: Type.Boolean(),
  aimId: Type.Optional(Type.String()),
  position: Type.Object({ x: Type.Number(), y: Type.Number(), width: Type.Number(), height: Type.Number() }),
  decoded: Type.Optional(Type.Ref('DecodeResult')),
  error: Type.Optional(Type.String()),
})

export const scanRoutes: FastifyPluginAsyncTypebox<{
  scan: ScanService
  scanImage: ReturnType<typeof createScanImageService>
  maxBytes: number
}> = async (app, { scan, scanImage, maxBytes }) => {
  app.addHook('onClose', () => scanImage.close())
  app.get(
    '/api/v1/packages/tracking/decode',
    {
      schema: {
        tags: ['decode'],
        security: [{ bearerAuth: [] }],
        summary: 'Decode a scanned barcode',
        description: [
          'Turns the raw text of a 1D or 2D scan (UPS MaxiCode, FedEx PDF417, USPS IMpb GS1-128/DataMatrix, Amazon DataMatrix, QR) into the tracking number, carrier, service, recipient and destination.',
          'Accepts AIM symbology prefixes (`]C1`, `]d2`, …), ISO/IEC 15434 envelopes (formats 01, 05, 06, 07, 09), GS1 element strings with FNC1 as GS, dropped, or in parentheses.',
          '`decodedCarriers` lists every candidate reading, ranked (valid check first, then how specific the reading is), each with `checkDigitValid` and its own `trackingNumber`.',
          "**When `package.carrier` is set.** Only from a strong reading: the symbol names the carrier (the SCAC of an ISO/IEC 15434 format 01 message, e.g. `UPSN`, `FDEB`; a carrier's own tracking URL in a QR code), or the number has a carrier-specific prefix with a valid check (`1Z…`, USPS IMpb `9x…`, UPU S10 `…US`, FedEx `96…`, OnTrac `C…`/`D…`, mailroom `MR…`) or a literal prefix only that carrier issues (`TBA…`, `JJD…`, `GM…`, `MI…`). And no other carrier may read the same number with a valid check: USPS IMpb numbers of channels 92 and 93 are also FedEx SmartPost, DHL eCommerce and UPS Ground Saver numbers, so they list all of them and state none. A bare shape never sets `package.carrier`, whatever its check says: 10 digits (DHL Express mod 7 passes one random number in 7), 12 digits (FedEx mod 11, Purolator Luhn), 15 digits (FedEx Ground), 16 digits (Canada Post), 20 digits (USPS, about 1 in 5 with the implied `91`), an SSCC (GS1 AI 00: the shipper's number, which names no carrier; the SSCC is returned as `trackingNumber`, FedEx only as a candidate). Such readings stay in `decodedCarriers` for the clerk to choose.",
          '**UPS MaxiCode.** The symbol holds `1Z` + the last eight characters and the shipper number; the two-character 1Z service code is not in it (the class of service is another code list). Every code of the 1Z service table is tried: when one full number passes the check it is the `trackingNumber`; when several do, each is a candidate and `trackingNumber` is the short field as scanned.',
          "When the subscription already holds the package: `packageId`, `currentStatus`, `currentLocation`, and its `sender`, `receiver` and `givenTo` (when set) as contacts in PB's shape (`contactId, name, company, personalId, phone, location, mailStopLocation`, sites as full references). It is looked up under `trackingNumber`, then under the candidates' numbers, and reported from those only when they lead to exactly one package; only the calling subscription's packages are seen. When the ship-to name matches exactly one active RECEIVER/ALL contact (case, accents and punctuation ignored; narrowed by company), or a ship-to naming only a company matches one contact of that name: `receiver` is that contact in the same shape, the label's address kept beside it (a held package's own receiver takes precedence); several: `receiverCandidates`.",
        ].join('\n\n'),
        querystring: DecodeQuerySchema,
        response: { 200: Type.Ref('DecodeResult'), ...errorResponses(400) },
      },
    },
    async (request) =>
      scan.decode(request.tenant.subId, request.query.trackingNumber, {
        expectedPackage: request.query.expectedPackage,
        editflow: request.query.editflow,
      }),
  )

  app.post(
    '/api/v1/packages/tracking/decode-image',
    {
      bodyLimit: Math.ceil((maxBytes * 4) / 3) + 4096,
      schema: {
        tags: ['decode'],
        security: [{ bearerAuth: [] }],
        summary: 'Find and decode every barcode in a label photo',
        description: [
          'Body: `{base64: "data:image/jpeg;base64,…"}` (as for image upload) or `{imageId}` of an uploaded image. PNG, JPEG and GIF are read (WebP is accepted for storage but cannot be decoded: 400). Each barcode found gets its symbology, raw text, position and the same decode result as the scan endpoint. Linear codes read best within about ±10° of level; DataMatrix and QR at any angle; MaxiCode only from an upright crop.',
          "**The printed recipient** (`read=text`; issue 27). The label is also read as text (OCR, offline: tesseract with its English model, in the same decode threads and budget), and `label` answers it: every line with its confidence, the SHIP TO block (the lines after SHIP TO / TO: / DELIVER TO, else the largest address block; a 2D barcode's ship-to when the text names nobody), the name, company and unit in it, and the directory match: `recipient.chosen` only when the best score passes RECIPIENT_AUTO_ASSIGN_THRESHOLD and leads the next by RECIPIENT_AUTO_ASSIGN_MARGIN, else `recipient.doubt` (the scan-issue reason) and the best three `suggestions`. `siteId`: the receiving site, whose group contacts are offered for business mail. `retake` says the photo is worth taking again. An OCR failure is `label.error`, never a failed request. Without `read`, the answer is exactly as before.",
          '**Limits.** A picture whose header declares more pixels than the service decodes (`IMAGE_MAX_PIXELS`, 50 megapixels by default) is a 400 naming the limit; it is not downscaled. Photos are decoded in worker threads shared by every subscription: one subscription decodes at most `IMAGE_DECODES_PER_SUBSCRIPTION` (default 2) at once, beyond that 429 with `Retry-After`; when the threads and their queue are full, 503 with `Retry-After`; a decode that exceeds its time budget (`IMAGE_DECODE_TIMEOUT_MS`, default 20 s, waiting included) is stopped and answered 503.',
        ].join('\n\n'),
        querystring: Type.Object(
          {
            read: Type.Optional(
              Type.Literal('text', { description: 'Also read the printed text and match its recipient: `label`.' }),
            ),
            siteId: Type.Optional(Type.String({ pattern: '^[A-Za-z0-9_-]{1,64}$' })),
          },
          // Query parameters this route does not know are ignored, as before `read` existed: a
          // client sending its own (a cache buster, a trace id) keeps working.
          { additionalProperties: true },
        ),
        body: Type.Object(
          {
            base64: Type.Optional(Type.String({ minLength: 1 })),
            imageId: Type.Optional(Type.String({ pattern: '^[a-z0-9_]{1,64}$' })),
          },
          { additionalProperties: false },
        ),
        response: {
          200: Type.Object({ barcodes: Type.Array(FoundSchema), label: Type.Optional(LabelAnswerSchema) }),
          ...errorResponses(400, 404, 413, 429),
          503: Type.Ref('ErrorBody', {
            description:
              'The decode threads and their queue are full, or the decode ran past its time budget; see Retry-After.',
          }),
        },
      },
    },
    async (request) =>
      scanImage.decodeImage(request.tenant.subId, request.body, {
        ...request.query,
        logTextError: (detail) => request.log.warn({ detail }, 'label text not read'),
      }),
  )
}
