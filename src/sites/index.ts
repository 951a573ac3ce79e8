// The sites domain's public face: what other domains may use of it (STYLE.md, Layout).
export { SiteRefSchema } from './api/schemas.js'
export type { SiteRef } from './api/schemas.js'
export { toSiteRef } from './model/view.js'
export type { SiteInfo } from './model/view.js'
export { sitesRoutes } from './api/routes.js'
export { SITE_STATUSES, SITE_TYPES } from './api/schemas.js'
export { createSitesService } from './service.js'
export type { SitesService } from './service.js'
