import { Type } from '@sinclair/typebox'
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { actorOf } from '../../packages/index.js'
import { errorResponses } from '../../platform/http/schemas.js'
import type { HoldsService } from '../holds-service.js'
import type { ReturnsService } from '../returns-service.js'
import {
  ConfirmSchema,
  ContactParams,
  CreateHoldSchema,
  DeadlineSchema,
  ExtendResultSchema,
  ExtendSchema,
  ForwardResultSchema,
  ForwardSchema,
  HoldListSchema,
  HoldParams,
  HoldSchema,
  PackageParams,
  ProposalListQuerySchema,
  ProposalListSchema,
  ProposalParams,
  SetDeadlineSchema,
  SiteParams,
} from './schemas.js'

const security = [{ bearerAuth: [] }]
const ext = 'An extension to the vendor contract (issue 30.2).'
const Empty = Type.Object({})

/** Issue 30.2: recipient holds, forwards, and returns to sender proposed after a site's deadline. */
export const holdsRoutes: FastifyPluginAsyncTypebox<{ holds: HoldsService; returns: ReturnsService }> = async (
  app,
  { holds, returns },
) => {
  const contacts = ['contacts']
  app.get(
    '/api/v1/contacts/:contactId/holds',
    {
      schema: {
        tags: contacts,
        security,
        summary: "List a contact's holds",
        description: `${ext} \`onHoldUntil\` is the last day of the hold in force now, what the desk shows.`,
        params: ContactParams,
        response: { 200: HoldListSchema, ...errorResponses(404) },
      },
    },
    async (request) => holds.listHolds(request.tenant.subId, request.params.contactId),
  )

  app.post(
    '/api/v1/contacts/:contactId/holds',
    {
      schema: {
        tags: contacts,
        security,
        summary: 'Put a contact on hold',
        description: [
          `${ext} Vacation, leave: from \`startDate\` through \`endDate\` (whole UTC days).`,
          'While a hold is in force the reminders and the final notice of the contact’s waiting parcels pause, and their parcels are not proposed for return. After it, each reminder step is due its usual hours after the hold’s end (the steps resume in order, not all at once). The arrival email is still sent during a hold.',
          'Holds may overlap; the one ending last counts.',
        ].join('\n\n'),
        params: ContactParams,
        body: CreateHoldSchema,
        response: { 201: HoldSchema, ...errorResponses(400, 404) },
      },
    },
    async (request, reply) =>
      reply.code(201).send(await holds.createHold(actorOf(request), request.params.contactId, request.body)),
  )

  app.delete(
    '/api/v1/contacts/:contactId/holds/:holdId',
    {
      schema: {
        tags: contacts,
        security,
        summary: 'Lift a hold',
        description: `${ext} A hold not begun is cancelled; one in force ends now (the reminders count from now); one over stays in the history.`,
        params: HoldParams,
        response: { 200: Empty, ...errorResponses(404) },
      },
    },
    async (request) => {
      await holds.liftHold(request.tenant.subId, request.params.contactId, request.params.holdId)
      return {}
    },
  )

  app.post(
    '/api/v1/packages/:packageId/forward',
    {
      schema: {
        tags: ['packages'],
        security,
        summary: 'Forward a package',
        description: [
          `${ext} Exactly one of \`inboundSiteId\` (another live site of the subscription: the package waits there from now on, its shelf cleared; a package in a locker leaves it as RECEIVED) or \`address\` (free text outside the subscription: status FORWARDED, its wait ends, event \`Forwarded\`).`,
          'Recorded as one activity (who, when, where; the address in its comment). A site forward emits `Updated`. A package not waiting at a site (handed over, returned, forwarded, archived, not arrived) is a 409.',
        ].join('\n\n'),
        params: PackageParams,
        body: ForwardSchema,
        response: { 200: ForwardResultSchema, ...errorResponses(400, 404, 409) },
      },
    },
    async (request) => returns.forward(actorOf(request), request.params.packageId, request.body),
  )

  const inboundsites = ['inboundsites']
  app.get(
    '/api/v1/inboundsites/:inboundSiteId/returnDeadline',
    {
      schema: {
        tags: inboundsites,
        security,
        summary: "Get a site's return deadline",
        description: `${ext} A parcel waiting longer than this many days is proposed for return to sender. A site without its own inherits its nearest ancestor's (\`effective\`); none anywhere: never proposed.`,
        params: SiteParams,
        response: { 200: DeadlineSchema, ...errorResponses(404) },
      },
    },
    async (request) => returns.getDeadline(request.tenant.subId, request.params.inboundSiteId),
  )

  app.put(
    '/api/v1/inboundsites/:inboundSiteId/returnDeadline',
    {
      schema: {
        tags: inboundsites,
        security,
        summary: "Set a site's return deadline",
        description: `${ext} \`returnAfterDays\` 1–365, or null to inherit again.`,
        params: SiteParams,
        body: SetDeadlineSchema,
        response: { 200: DeadlineSchema, ...errorResponses(400, 404) },
      },
    },
    async (request) =>
      returns.setDeadline(request.tenant.subId, request.params.inboundSiteId, request.body.returnAfterDays),
  )

  const proposals = ['returns']
  app.get(
    '/api/v1/returnProposals',
    {
      schema: {
        tags: proposals,
        security,
        summary: 'List return proposals',
        description: `${ext} The parcels the proposal job found waiting past their site's return deadline, still waiting and not decided, oldest arrival first; an extended one is listed again when its extension ends. \`inboundSiteId\`: only those waiting at that site when proposed.`,
        querystring: ProposalListQuerySchema,
        response: { 200: ProposalListSchema, ...errorResponses(400) },
      },
    },
    async (request) => returns.listProposals(request.tenant.subId, request.query),
  )

  app.post(
    '/api/v1/returnProposals/:proposalId/confirm',
    {
      schema: {
        tags: proposals,
        security,
        summary: 'Confirm a return',
        description: `${ext} The parcel is returned to its sender: status RETURNED_TO_SENDER, one activity, event \`ReturnToSender\`. A proposal already decided is a 409.`,
        params: ProposalParams,
        body: ConfirmSchema,
        response: { 200: ForwardResultSchema, ...errorResponses(400, 404, 409) },
      },
      // The body is optional, as Archive's: no body is a confirm without a comment.
      preValidation: (request, _reply, done) => {
        request.body ??= {}
        done()
      },
    },
    async (request) => returns.confirmProposal(actorOf(request), request.params.proposalId, request.body.comment),
  )

  app.post(
    '/api/v1/returnProposals/:proposalId/dismiss',
    {
      schema: {
        tags: proposals,
        security,
        summary: 'Dismiss a return proposal',
        description: `${ext} The parcel keeps waiting and is never proposed again.`,
        params: ProposalParams,
        response: { 200: Empty, ...errorResponses(404, 409) },
      },
    },
    async (request) => {
      await returns.dismissProposal(actorOf(request), request.params.proposalId)
      return {}
    },
  )

  app.post(
    '/api/v1/returnProposals/:proposalId/extend',
    {
      schema: {
        tags: proposals,
        security,
        summary: 'Extend a return proposal',
        description: `${ext} The proposal leaves the list for \`days\` days, then comes back.`,
        params: ProposalParams,
        body: ExtendSchema,
        response: { 200: ExtendResultSchema, ...errorResponses(400, 404, 409) },
      },
    },
    async (request) => returns.extendProposal(actorOf(request), request.params.proposalId, request.body.days),
  )
}
