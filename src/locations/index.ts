// The locations domain's public face: what other domains may use of it (STYLE.md, Layout).
export { locationsRoutes } from './api/routes.js'
export { createLocationsService } from './service.js'
export type { LocationsService } from './service.js'
// Read by package search and export, composed into their statements.
export { postalCodes } from './store/package-search.js'
