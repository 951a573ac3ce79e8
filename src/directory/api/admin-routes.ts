import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import type { FastifyReply, FastifyRequest } from 'fastify'
import { Type } from '@sinclair/typebox'
import { errorResponses } from '../../platform/http/schemas.js'
import type { ScimTokensService } from '../scim-tokens-service.js'
import type { LdapService } from '../ldap-service.js'
import { LdapRunSchema, LdapSettingsSchema, PutLdapSettingsSchema, RunLdapSchema } from './ldap-schemas.js'
import { CreatedScimTokenSchema, NewScimTokenSchema, ScimTokenListSchema, TokenIdParams } from './admin-schemas.js'

const tags = ['directory']
const security = [{ bearerAuth: [] }]

/**
 * The directory's set-up is an admin's, reads included (a list of who may provision recipients):
 * writes are refused to clerks by the access rules, and this refuses them the reads too.
 */
export async function adminOnly(request: FastifyRequest, reply: FastifyReply) {
  if (request.user?.role === 'clerk')
    return reply
      .code(403)
      .send({ message: 'This needs an admin: a clerk may not change the set-up of the subscription.' })
}

/** SCIM tokens (made, listed, revoked) and the LDAP pull's settings: an admin's, in the console or through the API. */
export const directoryAdminRoutes: FastifyPluginAsyncTypebox<{
  tokens: ScimTokensService
  ldap: LdapService
  scimUrl: string
}> = async (app, { tokens, ldap, scimUrl }) => {
  app.addHook('onRequest', adminOnly)
  app.get(
    '/api/v1/directory/scim/tokens',
    {
      schema: {
        tags,
        security,
        summary: 'List SCIM tokens',
        description:
          'The live SCIM bearer tokens of the subscription (never the tokens themselves), and the SCIM base URL.',
        response: { 200: ScimTokenListSchema, ...errorResponses() },
      },
    },
    async (request) => ({ tokens: await tokens.listTokens(request.tenant.subId), scimUrl }),
  )
  app.post(
    '/api/v1/directory/scim/tokens',
    {
      schema: {
        tags,
        security,
        summary: 'Create a SCIM token',
        description:
          "A bearer token for an identity provider's SCIM app (Okta, Entra ID): the answer is the only time it is shown; only an HMAC of it is kept. Admins only.",
        body: NewScimTokenSchema,
        response: { 201: CreatedScimTokenSchema, ...errorResponses(400) },
      },
    },
    async (request, reply) =>
      reply.code(201).send({ ...(await tokens.createToken(request.tenant.subId, request.body.name)), scimUrl }),
  )
  app.delete(
    '/api/v1/directory/scim/tokens/:tokenId',
    {
      schema: {
        tags,
        security,
        summary: 'Revoke a SCIM token',
        description: 'The token stops working at once.',
        params: TokenIdParams,
        response: { 200: Type.Object({}), ...errorResponses(404) },
      },
    },
    async (request) => {
      await tokens.revokeToken(request.tenant.subId, request.params.tokenId)
      return {}
    },
  )

  app.get(
    '/api/v1/directory/ldap',
    {
      schema: {
        tags,
        security,
        summary: 'Get the LDAP sync settings',
        description: 'The bind password is never shown (********). `lastRun`: the outcome of the last sync.',
        response: { 200: LdapSettingsSchema, ...errorResponses(404) },
      },
    },
    async (request) => ldap.getSettings(request.tenant.subId),
  )
  app.put(
    '/api/v1/directory/ldap',
    {
      schema: {
        tags,
        security,
        summary: 'Set the LDAP sync settings',
        description:
          'A periodic pull of people from LDAP or Active Directory: a paged subtree search of `baseDn` with `filter`, each entry mapped to a contact (source `ldap`) and matched by its id attribute (`mapping.externalId`), else by email among contacts without one. Contacts of this directory it no longer lists are deactivated, never deleted. The bind password is sealed at rest (AES-256-GCM). The first sync runs within a minute of a change, then every `intervalMinutes`.',
        body: PutLdapSettingsSchema,
        response: { 200: LdapSettingsSchema, ...errorResponses(400) },
      },
    },
    async (request) => ldap.putSettings(request.tenant.subId, request.body),
  )
  app.delete(
    '/api/v1/directory/ldap',
    {
      schema: {
        tags,
        security,
        summary: 'Stop syncing from LDAP',
        description: 'Forgets the settings; the contacts stay as they are.',
        response: { 200: Type.Object({}), ...errorResponses(404) },
      },
    },
    async (request) => {
      await ldap.deleteSettings(request.tenant.subId)
      return {}
    },
  )
  app.post(
    '/api/v1/directory/ldap/run',
    {
      schema: {
        tags,
        security,
        summary: 'Sync from LDAP now',
        description:
          "Runs the sync at once and answers its outcome; with `dryRun: true`, what it would do (adds, updates, deactivations, invalid entries), writing nothing. A run that would deactivate too many contacts (none found, or more than `maxDeactivationPercent`) writes nothing and answers `refused`; `confirmRunId` (that run's `runId`) lets the next run deactivate as many. 409 when the directory cannot be read (the reason is in the description), while another sync of this directory runs or when this run lost its lease before writing (DIR-4091: it wrote nothing, and `lastRun` records it as aborted), or when `confirmRunId` is not the last, refused run (DIR-4092).",
        body: Type.Optional(RunLdapSchema),
        response: { 200: LdapRunSchema, ...errorResponses(404, 409) },
      },
    },
    async (request) => ldap.runNow(request.tenant.subId, request.body ?? {}),
  )
}
