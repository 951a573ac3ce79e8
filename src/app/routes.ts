import type {
  FastifyBaseLogger,
  FastifyInstance,
  FastifyPluginAsync,
  FastifyPluginOptions,
  FastifyTypeProvider,
  RawReplyDefaultExpression,
  RawRequestDefaultExpression,
  RawServerDefault,
} from 'fastify'
import type { AppContext } from './context.js'
import {
  notificationsPreviewRoutes,
  notificationsRoutes,
  smsRoutes,
  smsWebhookRoutes,
  unsubscribeRoutes,
} from '../notifications/index.js'
import { carriersRoutes } from '../carriers/index.js'
import { clientsRoutes } from '../access/index.js'
import { consoleRoutes } from './console/routes.js'
import { consoleSessionRoutes } from '../access/index.js'
import { contactsRoutes } from '../contacts/index.js'
import { customFieldsRoutes } from '../customfields/index.js'
import { healthRoutes } from '../platform/http/health.js'
import { imagesRoutes } from '../images/index.js'
import { locationsRoutes } from '../locations/index.js'
import { metadataRoutes } from '../access/index.js'
import { packagesRoutes, trackingNumbersRoutes } from '../packages/index.js'
import { pickupsRoutes } from '../pickups/index.js'
import { reportsRoutes } from '../reports/index.js'
import { exceptionsRoutes } from '../exceptions/index.js'
import { scanIssuesRoutes } from '../scanissues/index.js'
import { scanRoutes } from '../scan/index.js'
import { searchRoutes } from '../search/index.js'
import { sessionRoutes } from '../access/index.js'
import { shelvesRoutes } from '../shelves/index.js'
import { holdsRoutes } from '../holds/index.js'
import { sitesRoutes } from '../sites/index.js'
import { ssoAdminRoutes, ssoConsoleRoutes } from '../access/index.js'
import { tokenRoutes } from '../access/index.js'
import { usersRoutes } from '../access/index.js'
import { webhookRoutes, type WebhookVariant } from '../webhooks/index.js'
import { departuresRoutes, directoryAdminRoutes } from '../directory/index.js'

/** Where identity providers find the SCIM service (RFC 7644 §3: the base URL is the provider's to choose). */
export const SCIM_PREFIX = '/scim/v2'

/** An app or a scope of it; route plugins type their own schemas (TypeBox). */
type Scope = FastifyInstance<
  RawServerDefault,
  RawRequestDefaultExpression,
  RawReplyDefaultExpression,
  FastifyBaseLogger,
  FastifyTypeProvider
>
type Mount = (scope: Scope) => Promise<void>

/** One route plugin with its options, mounted into a scope (its own encapsulated child). */
function mount<O extends FastifyPluginOptions>(plugin: FastifyPluginAsync<O>, opts: O): Mount {
  return async (scope) => {
    await scope.register(plugin, opts)
  }
}

/**
 * Every route plugin, by interface, in mounting order (the order of the OpenAPI document). The
 * interface's scope in buildApp adds its authentication and request hooks before these are mounted.
 */
export function routePlugins(
  ctx: AppContext,
  isShuttingDown: () => boolean,
): { public: Mount[]; receiving: Mount[]; webhooks: (variant: WebhookVariant) => Mount[]; console: Mount[] } {
  const { config, companions, receiving } = ctx
  return {
    public: [
      mount(healthRoutes, { db: ctx.db, isShuttingDown }),
      mount(tokenRoutes, {
        prefix: config.prefixes.auth,
        clients: ctx.clients,
        tokens: ctx.tokens,
        keys: ctx.keys,
        limiter: ctx.tokenLimiter,
        issuer: ctx.issuer,
      }),
      mount(metadataRoutes, {
        issuer: ctx.issuer,
        authUrl: `${config.publicUrl}${config.prefixes.auth}`,
        authPrefix: config.prefixes.auth,
        issuerPath: `${config.prefixes.auth}/${config.authRegion}`,
      }),
      // The browser console: static files; its data comes from the API below, as any client's does.
      mount(consoleRoutes, {
        apiPrefix: config.prefixes.receiving,
        webhooksPrefix: config.prefixes.trackingWebhooks,
      }),
      // The emails' unsubscribe link: its signed token is the credential (RFC 8058 one-click POST).
      mount(unsubscribeRoutes, { notifications: ctx.notifications.service }),
      // An SMS provider's incoming texts and receipts: its request signature is the credential.
      mount(smsWebhookRoutes, { sms: ctx.notifications.sms }),
    ],
    receiving: [
      mount(sessionRoutes, {}),
      mount(contactsRoutes, { contacts: companions.contacts }),
      mount(customFieldsRoutes, { customFields: companions.customFields }),
      mount(locationsRoutes, { locations: companions.locations }),
      mount(carriersRoutes, { carriers: companions.carriers }),
      mount(sitesRoutes, { sites: receiving.sites }),
      mount(imagesRoutes, { images: receiving.images, maxBytes: config.imageMaxBytes }),
      mount(packagesRoutes, { packages: receiving.packages }),
      mount(pickupsRoutes, { pickups: receiving.pickups }),
      mount(searchRoutes, { search: receiving.search }),
      mount(trackingNumbersRoutes, { trackingNumbers: receiving.trackingNumbers }),
      mount(scanRoutes, { scan: receiving.scan, scanImage: receiving.scanImage, maxBytes: config.imageMaxBytes }),
      mount(scanIssuesRoutes, { scanIssues: receiving.scanIssues }),
      mount(usersRoutes, { users: ctx.users }),
      mount(ssoAdminRoutes, { sso: ctx.sso }),
      mount(clientsRoutes, { clients: ctx.clients }),
      mount(notificationsRoutes, { notifications: ctx.notifications.service }),
      mount(notificationsPreviewRoutes, {}),
      mount(smsRoutes, { sms: ctx.notifications.sms }),
      mount(departuresRoutes, { departures: ctx.directory.departures }),
      mount(shelvesRoutes, { shelves: ctx.shelves, shelfAudits: ctx.shelfAudits }),
      mount(reportsRoutes, { reports: ctx.reports, summary: ctx.reportSummary }),
      mount(exceptionsRoutes, { exceptions: ctx.exceptions }),
      mount(holdsRoutes, { holds: ctx.holds.holds, returns: ctx.holds.returns }),
      mount(directoryAdminRoutes, {
        tokens: ctx.directory.tokens,
        ldap: ctx.directory.ldap,
        scimUrl: `${config.publicUrl.replace(/\/$/, '')}${SCIM_PREFIX}`,
      }),
    ],
    webhooks: (variant) => [
      mount(sessionRoutes, { tag: `${variant} webhooks` }),
      mount(webhookRoutes, { webhooks: ctx.webhooks, variant }),
    ],
    console: [
      mount(consoleSessionRoutes, { sessions: ctx.sessions, publicUrl: config.publicUrl }),
      mount(ssoConsoleRoutes, { sso: ctx.sso, publicUrl: config.publicUrl }),
    ],
  }
}
