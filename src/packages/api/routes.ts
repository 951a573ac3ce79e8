import { Type } from '@sinclair/typebox'
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import type { FastifyRequest } from 'fastify'
import { errorResponses } from '../../platform/http/schemas.js'
import { sendAs } from '../../platform/http/serializers.js'
import { invalid } from '../../platform/kit/errors.js'
import {
  ActivitiesResponseSchema,
  AddPackageSchema,
  ArchiveBodySchema,
  GetPackageQuery,
  ImagesResponseSchema,
  PackageIdParams,
  UpdatePackageSchema,
  WriteResponseSchema,
} from './schemas.js'
import type { Actor, PackagesService } from '../service.js'
import type { TrackingNumbersService } from '../tracking-number-service.js'
import { outcomeOf } from '../../platform/idempotency/hooks.js'

const tags = ['packages']
const security = [{ bearerAuth: [] }]
/** What GET /packages/{id} answers, by its `type`: documented as one of them, each written by its own serializer. */
const ANSWERS = {
  DETAILED: Type.Ref('Package'),
  ACTIVITIES: ActivitiesResponseSchema,
  IMAGES: ImagesResponseSchema,
} as const

const OPERATOR = /^[\p{L}\p{N} ._@'-]{1,100}$/u
/**
 * userName is always the authenticated client id. `X-User-Name`, when a console acts for a named
 * clerk, is only what the client claims: recorded as the activity's reportedBy and as the clerk.
 * A signed-in console user is the clerk and the userName, whatever the request says (issue 18.2);
 * their account's name, when it has one, is the activity's reportedBy, so History names the clerk
 * by name (issue 25 item 5) while receiveClerk and userName stay the account's email.
 */
export function actorOf(request: FastifyRequest): Actor {
  const { subId, clientId } = request.tenant
  const { user } = request
  if (user) {
    // A site limits clerks only: an admin's siteId is where they usually work, not a fence.
    const siteScope = user.role === 'clerk' && user.siteId !== null ? { siteScope: user.siteId } : {}
    const named = user.name?.trim() ? { reportedBy: user.name.trim() } : {}
    return { subId, userName: user.email, clerk: user.email, ...named, ...siteScope }
  }
  const header = request.headers['x-user-name']
  if (header === undefined) return { subId, userName: clientId, clerk: clientId }
  if (typeof header !== 'string' || !OPERATOR.test(header.trim()))
    throw invalid('X-User-Name', "X-User-Name must be 1 to 100 letters, digits, spaces or . _ @ ' -")
  return { subId, userName: clientId, clerk: header.trim(), reportedBy: header.trim() }
}

function ifMatchOf(request: FastifyRequest): number | undefined {
  const h = request.headers['if-match']
  if (h === undefined) return undefined
  const m = /^(?:W\/)?"?(\d{1,9})"?$/.exec(String(h).trim())
  if (!m) throw invalid('If-Match', 'If-Match must be the package version, e.g. If-Match: 3')
  return Number(m[1])
}

export const packagesRoutes: FastifyPluginAsyncTypebox<{ packages: PackagesService }> = async (app, { packages }) => {
  app.post(
    '/api/v1/packages',
    {
      schema: {
        tags,
        security,
        summary: 'Add a package',
        description: [
          'Records a package and its first activity (status `lastActivity.status`, default RECEIVED) in one transaction, with its webhook events.',
          'Site: `lastActivity.location.inboundSiteId`, else `package.inboundSiteId`, else the primary site. Sender must be a SENDER/ALL contact, receiver a RECEIVER/ALL one.',
          'DELIVERED/PICKED_UP set deliveryTime and deliveryClerk and need givenTo (defaults to the receiver). IN_LOCKER needs lockerBank and lockerUnit. DAMAGED sets damaged; ARCHIVED archives.',
          "Tracking numbers are normalised (spaces removed, upper case) and unique among the subscription's active packages: 409 already_exists otherwise.",
          'Status IN_TRANSIT announces an expected package (webhook `Manifest`); `receiveClerk` is set when it first reaches a site (`Acceptance`). `carrier.carrierId` takes our id or the names Pitney Bowes clients use (`FedEx`, `DHL`…); the record shows our id.',
          "Optional header `X-User-Name` names the clerk (default: the API client id): recorded as the activity's `reportedBy` and as receiveClerk/deliveryClerk, while `userName` is always the authenticated client id. `Idempotency-Key` makes retries safe.",
          '`package.customFields`: values for the subscription’s custom fields (`/api/v1/customfields`). Every ACTIVE field marked `required` needs a value on every Add, from any client (CONTRACT §3: package values are validated against the definitions): 400 naming `package.customFields` and the field otherwise. A subscription that defines no required field (the Pitney Bowes default) is unaffected; marking one required is the admin’s choice for every client.',
        ].join('\n\n'),
        body: AddPackageSchema,
        response: { 201: WriteResponseSchema, ...errorResponses(400, 409) },
      },
    },
    async (request, reply) =>
      reply.code(201).send(await packages.addPackage(actorOf(request), request.body, outcomeOf(request, reply, 201))),
  )

  app.get(
    '/api/v1/packages/:packageId',
    {
      schema: {
        tags,
        security,
        summary: 'Get a package: its record, its activities or its images',
        params: PackageIdParams,
        querystring: GetPackageQuery,
        response: {
          200: Type.Union([ANSWERS.DETAILED, ANSWERS.ACTIVITIES, ANSWERS.IMAGES]),
          ...errorResponses(400, 404),
        },
      },
    },
    async (request, reply) => {
      const { subId } = request.tenant
      const { packageId } = request.params
      const { type } = request.query
      const answer =
        type === 'ACTIVITIES'
          ? await packages.getActivities(subId, packageId)
          : type === 'IMAGES'
            ? await packages.getImages(subId, packageId)
            : await packages.getDetailed(subId, packageId)
      return sendAs(reply, ANSWERS[type], answer)
    },
  )

  app.put(
    '/api/v1/packages/:packageId',
    {
      schema: {
        tags,
        security,
        summary: 'Update a package (appends one activity)',
        description:
          "Same envelope as Add; `package` required. Fields given replace, absent stay, `null` clears an optional field. `If-Match: <version>` makes the update conditional (412 when stale). An archived package cannot be updated (409). A status of `DELIVERED` or `PICKED_UP` here follows the vendor contract (CONTRACT §3: a `givenTo`, from the body or the receiver) and does not apply the sites' `signatureRule`: Pitney Bowes clients send these updates without proof images, and refusing them would break drop-in compatibility. The desk's own hand-over, `POST /api/v1/pickups`, is where the rule is enforced.",
        params: PackageIdParams,
        body: UpdatePackageSchema,
        response: { 200: WriteResponseSchema, ...errorResponses(400, 404, 409, 412) },
      },
    },
    async (request) =>
      packages.updatePackage(actorOf(request), request.params.packageId, request.body, ifMatchOf(request)),
  )

  app.patch(
    '/api/v1/packages/:packageId/archive',
    {
      schema: {
        tags,
        security,
        summary: 'Archive or un-archive a package',
        description:
          '`{archived: true}` (default) archives; `false` un-archives, back to the status before archiving (409 if another active package now has the number). Both are recorded as activities.',
        params: PackageIdParams,
        body: ArchiveBodySchema,
        response: { 200: Type.Object({ packageId: Type.String() }), ...errorResponses(400, 404, 409) },
      },
      // The body is optional (CONTRACT §3): no body means archive.
      preValidation: (request, _reply, done) => {
        request.body ??= {}
        done()
      },
    },
    async (request) => packages.setArchived(actorOf(request), request.params.packageId, request.body?.archived ?? true),
  )

  app.get(
    '/api/v1/packages/tracking/:trackingNumber',
    {
      schema: {
        tags,
        security,
        summary: 'Get the package with a tracking number',
        description: 'The active package with that (normalised) number, else the newest archived one.',
        params: Type.Object({ trackingNumber: Type.String({ minLength: 1, maxLength: 80 }) }),
        response: { 200: Type.Ref('Package'), ...errorResponses(404) },
      },
    },
    async (request) => packages.getByTrackingNumber(request.tenant.subId, request.params.trackingNumber),
  )
}

export const trackingNumbersRoutes: FastifyPluginAsyncTypebox<{ trackingNumbers: TrackingNumbersService }> = async (
  app,
  { trackingNumbers },
) => {
  app.post(
    '/api/v1/trackingNumbers',
    {
      schema: {
        tags: ['packages'],
        security: [{ bearerAuth: [] }],
        summary: 'Generate a tracking number',
        description:
          'For packages without one (internal mail, pouches). Format: `MR` + 12 Crockford base-32 characters + 1 check character (Luhn mod 32 over the 12), e.g. `MR6X0D3JZ4T1QKF`. Drawn from a database sequence: never the same number twice, across every process. The decode endpoint recognises these numbers.',
        response: {
          200: Type.Object({ trackingNumber: Type.String({ pattern: '^MR[0-9A-HJKMNP-TV-Z]{13}$' }) }),
          ...errorResponses(),
        },
      },
    },
    async () => ({ trackingNumber: await trackingNumbers.generate() }),
  )
}
