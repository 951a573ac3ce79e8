import type { FastifyInstance } from 'fastify'
import { isSafeMethod } from '../../platform/http/safe-methods.js'

export const ACCESS = ['admin', 'clerk'] as const
export type Access = (typeof ACCESS)[number]

declare module 'fastify' {
  interface FastifyContextConfig {
    /** Who may call the route: `admin` refuses clerks; set from ADMIN_ONLY by registerAccess. */
    access?: Access
  }
}

/**
 * The set-up of a subscription: what a clerk may not do (issue 18.2), as `METHOD /path` the way the
 * routes declare them (without their interface's prefix). The one place a route is made admin-only;
 * test/users/access.test.ts checks that every write route of the app is in here or in CLERK_WRITES,
 * and a write in neither is refused to clerks all the same.
 *
 * Contacts: a clerk adds and corrects a contact at the desk (a new resident, a changed phone), so
 * POST and PUT are the desk's; deleting one (and so the roster) is set-up.
 */
export const ADMIN_ONLY: ReadonlySet<string> = new Set([
  // People.
  'GET /api/v1/users',
  'POST /api/v1/users',
  'PATCH /api/v1/users/:userId',
  'POST /api/v1/users/:userId/password',
  // Single sign-on, reads included: they name the identity provider and its client.
  'GET /api/v1/sso',
  'PUT /api/v1/sso',
  // The directory's feeds: SCIM tokens and the LDAP sync (reads included: they name the directory
  // server and its bind account), and roster workbooks, which deactivate contacts as CSV rosters do.
  'GET /api/v1/directory/scim/tokens',
  'POST /api/v1/directory/scim/tokens',
  'DELETE /api/v1/directory/scim/tokens/:tokenId',
  'GET /api/v1/directory/ldap',
  'PUT /api/v1/directory/ldap',
  'DELETE /api/v1/directory/ldap',
  'POST /api/v1/directory/ldap/run',
  'POST /api/v1/contacts/import/xlsx',
  // Machines: API clients and their secrets, reads included (a list of who can call the API).
  'GET /api/v1/clients',
  'POST /api/v1/clients',
  'PATCH /api/v1/clients/:clientId',
  'POST /api/v1/clients/:clientId/secret',
  // Sites, locations, carriers, custom fields, the contact roster.
  'POST /api/v1/inboundsites',
  'PUT /api/v1/inboundsites/:id',
  'DELETE /api/v1/inboundsites/:id',
  'POST /api/v1/locations',
  'PUT /api/v1/locations/:locationId',
  'PUT /api/v1/locations/:locationId/carriers',
  'DELETE /api/v1/locations/:locationId',
  'POST /api/v1/carriers/catalog',
  'PUT /api/v1/carriers/catalog/:carrierId',
  'DELETE /api/v1/carriers/catalog/:carrierId',
  'POST /api/v1/customfields',
  'PUT /api/v1/customfields/:customFieldId',
  'DELETE /api/v1/customfields/:customFieldId',
  'DELETE /api/v1/contacts/:contactId',
  'POST /api/v1/contacts/import/csv',
  'POST /api/v1/contacts/import',
  // Webhook configurations, reads included: their delivery logs show where data goes.
  // Recipient emails: whether and when they go, and what they say.
  'PUT /api/v1/notifications/settings',
  'POST /api/v1/notifications/settings/preview',
  // Texts: the provider's URL, account and sender, reads included.
  'GET /api/v1/notifications/sms/settings',
  'PUT /api/v1/notifications/sms/settings',
  'POST /api/v1/webhookConfig',
  'GET /api/v1/webhookConfig',
  'GET /api/v1/webhookConfig/:webHookConfigID',
  'PUT /api/v1/webhookConfig/:webHookConfigID',
  'DELETE /api/v1/webhookConfig/:webHookConfigID',
  'POST /api/v1/webhookConfig/:webHookConfigID/rotateSecret',
  'POST /api/v1/webhookConfig/:webHookConfigID/test',
  'GET /api/v1/webhookConfig/:webHookConfigID/deliveries',
  'POST /api/v1/webhookConfig/:webHookConfigID/deliveries/:deliveryId/retry',
  'GET /api/v1/webhookConfig/:webHookConfigID/deliveries/:deliveryId/attempts',
  // Shelves: which sites carry a label code is set-up; filing and audits (and reading past audits: GETs) are the desk's.
  'PUT /api/v1/shelves/:inboundSiteId',
  'DELETE /api/v1/shelves/:inboundSiteId',
  // Reports: who gets the daily summary email (it names the admins and their addresses).
  'GET /api/v1/reports/summary-email',
  'PUT /api/v1/reports/summary-email/recipients/:userId',
  // A site's return deadline is set-up (issue 30.2); deciding each proposal is the desk's.
  'PUT /api/v1/inboundsites/:inboundSiteId/returnDeadline',
])

/** The writes of the desk (and reads made with POST): a clerk makes them. */
export const CLERK_WRITES: ReadonlySet<string> = new Set([
  'POST /api/v1/packages',
  'PUT /api/v1/packages/:packageId',
  'PATCH /api/v1/packages/:packageId/archive',
  'POST /api/v1/packages/images',
  'POST /api/v1/packages/search',
  'POST /api/v1/trackingNumbers',
  'POST /api/v1/packages/tracking/decode-image',
  'POST /api/v1/contacts',
  'PUT /api/v1/contacts/:contactId',
  'POST /api/v1/carriers',
  'POST /api/v1/location/inboundsites',
  'POST /api/v1/pickups',
  // A recipient says the email did not arrive: the desk sends it again.
  'POST /api/v1/notifications/:notificationId/resend',
  // A recipient opts in to texts (or out) at the desk: the clerk records it with its source.
  'PUT /api/v1/notifications/recipients/:contactId/channels',
  // A label photo that named no sure recipient: the desk opens the issue and settles it.
  'POST /api/v1/scanissues',
  'POST /api/v1/scanissues/:scanIssueId/resolve',
  // Scan a shelf label after parcels (or before a run of them); audit what a shelf holds.
  'POST /api/v1/shelves/:inboundSiteId/filings',
  'POST /api/v1/shelves/:inboundSiteId/audits',
  // Holds, forwards, returns (issue 30.2): a recipient's leave noted, a parcel sent on or back.
  'POST /api/v1/contacts/:contactId/holds',
  'DELETE /api/v1/contacts/:contactId/holds/:holdId',
  'POST /api/v1/packages/:packageId/forward',
  'POST /api/v1/returnProposals/:proposalId/confirm',
  'POST /api/v1/returnProposals/:proposalId/dismiss',
  'POST /api/v1/returnProposals/:proposalId/extend',
])

/** Admin when listed so, or a write nobody classified (refused to clerks until someone decides). */
export function accessOf(method: string, path: string): Access {
  const key = routeKey(method, path)
  if (ADMIN_ONLY.has(key)) return 'admin'
  return isSafeMethod(method) || CLERK_WRITES.has(key) ? 'clerk' : 'admin'
}

// HEAD answers as its GET does, so it is allowed to whom the GET is.
export const routeKey = (method: string, path: string) =>
  `${method.toUpperCase() === 'HEAD' ? 'GET' : method.toUpperCase()} ${path}`

export const CLERK_REFUSED = 'This needs an admin: a clerk may not change the set-up of the subscription.'

/**
 * Marks each route of the scope from ADMIN_ONLY, and refuses a clerk's request to an admin route
 * (403) once authentication has said who is calling. API clients are admins of their subscription.
 */
export function registerAccess(scope: FastifyInstance): void {
  scope.addHook('onRoute', (route) => {
    const methods = Array.isArray(route.method) ? route.method : [route.method]
    const admin = methods.some((m) => accessOf(m, route.routePath) === 'admin')
    route.config = { ...route.config, access: admin ? 'admin' : 'clerk' }
  })
  // Callback style: every request of the scope passes here, and an async hook costs each a promise and a tick.
  scope.addHook('onRequest', (request, reply, done) => {
    if (request.user?.role === 'clerk' && request.routeOptions.config.access === 'admin')
      return void reply.code(403).send({ message: CLERK_REFUSED })
    done()
  })
}
