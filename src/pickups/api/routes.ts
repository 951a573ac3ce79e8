import { PICKUP_CODE_RETENTION_DAYS } from '../jobs/pickup-codes-retention.js'
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { errorResponses } from '../../platform/http/schemas.js'
import { outcomeOf } from '../../platform/idempotency/hooks.js'
import { actorOf } from '../../packages/index.js'
import {
  CreatePickupSchema,
  ListPickupsQuerySchema,
  PickupIdParams,
  PickupListSchema,
  PickupSchema,
} from './schemas.js'
import type { PickupsService } from '../service.js'

const tags = ['pickups']
const security = [{ bearerAuth: [] }]

/** Issue 17.4: the desk hands several waiting packages over in one step, with one code and one signature. */
export const pickupsRoutes: FastifyPluginAsyncTypebox<{ pickups: PickupsService }> = async (app, { pickups }) => {
  app.post(
    '/api/v1/pickups',
    {
      schema: {
        tags,
        security,
        summary: 'Hand over waiting packages in one step (by pickup code or contact)',
        description: [
          "Selects the waiting packages (any status but DELIVERED, PICKED_UP, RETURNED_TO_SENDER, ARCHIVED, FORWARDED and IN_TRANSIT, not archived) under `pickupCode` (every package's record shows its `pickupCode`; a receiver's waiting parcels share one) or for the receiver `contactId`, one of the two; `packageIds` narrows them.",
          'Every selected package becomes DELIVERED in ONE transaction, by the same rules as an Update to DELIVERED: deliveryTime, deliveryClerk, givenTo, one activity each (its comment and `pickupId` name this pickup) and the usual webhook events (`Delivered`, and `PickedUp` for the locker variant when it leaves a locker). All or nothing: a package that cannot be handed over is a 400 naming it (`packageIds[i]`, else the field that selected it) and nothing is written.',
          '`givenTo`: `{contactId}` (recorded as each package’s givenTo) or `{name}` (someone collecting on the receiver’s behalf: recorded in the pickup and the activity comment; the package’s givenTo stays its receiver); absent, the receiver collects. A package without a receiver needs `givenTo.contactId`.',
          "The proof the packages' sites ask for (each site's `signatureRule`, else its nearest ancestor's; unset at the top: `required`) is enforced here: where any selected package's site requires a signature, the pickup needs a `SIGNATURE` image, a `typedSignature` (the collector's full name typed by them, recorded as typed), or a `PHOTO` of the collector or their ID where every site allows photos (`photoProofAllowed`); otherwise 400 naming `images`, and nothing is handed over. `optional` and `off` take the pickup with or without proof. A package flagged `SIGNATURE_REQUIRED` needs a drawn or typed signature whatever its site's rule (a photo does not stand in). Where a site charges a holding fee (`holdingFee`), the pickup lists what each parcel owed at the hand-over in `holdingFees` (its receipt).",
          "`images`: signature or photo uploads (POST /api/v1/packages/images → tempURL), attached at level ACTIVITY to the first package's DELIVERED activity (GET …?type=IMAGES of that package) and listed in the pickup.",
          `A wrong code is a 400 naming \`pickupCode\` (\`No pickup code …\`); a code whose packages were all collected is a 400 \`… has already been used\`. A code stays registered (never handed out again, and refused as used) until ${PICKUP_CODE_RETENTION_DAYS} days after the last of its packages was finished with (delivered, returned, archived); then housekeeping forgets it, and it reads as a wrong code. Wrong and used codes are counted: after PICKUP_CODE_FAILURE_LIMIT (default 10) per API client, or 3 times that per subscription, within PICKUP_CODE_FAILURE_WINDOW_SECONDS (default 900), pickups by code answer 429 with \`Retry-After\` (even for a right code); each further lock doubles, at most 4 windows. Checks of the codes of one subscription run one after the other in every process (the limit, the look-up and the count of a wrong code as one step), so a parallel burst of wrong codes is refused past the limit like a sequence. Pickups by contactId are not limited.`,
          '`X-User-Name` names the clerk, as on package writes. `Idempotency-Key` makes a retry return the first answer.',
        ].join('\n\n'),
        body: CreatePickupSchema,
        response: { 201: PickupSchema, ...errorResponses(400, 429) },
      },
    },
    async (request, reply) =>
      reply.code(201).send(await pickups.createPickup(actorOf(request), request.body, outcomeOf(request, reply, 201))),
  )

  app.get(
    '/api/v1/pickups',
    {
      schema: {
        tags,
        security,
        summary: 'List pickups',
        description:
          'The subscription’s pickups, newest first, paged like the package search (`page` from 1, `size` default 25, at most 200) with `totalCount`. `contactId`: pickups of that receiver or collected by that contact. `from`/`to`: when they were handed over (from inclusive, to exclusive). Each shows who collected (`givenTo`), on whose behalf (`onBehalfOf`), when (`deliveredAt`), where (`inboundSites`), which packages and which proof images.',
        querystring: ListPickupsQuerySchema,
        response: { 200: PickupListSchema, ...errorResponses(400) },
      },
    },
    async (request) => pickups.listPickups(request.tenant.subId, request.query),
  )

  app.get(
    '/api/v1/pickups/:pickupId',
    {
      schema: {
        tags,
        security,
        summary: 'Get a pickup',
        description: 'A pickup of another subscription is 404.',
        params: PickupIdParams,
        response: { 200: PickupSchema, ...errorResponses(400, 404) },
      },
    },
    async (request) => pickups.getPickup(request.tenant.subId, request.params.pickupId),
  )
}
