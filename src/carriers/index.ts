// The carriers domain's public face: what other domains may use of it (STYLE.md, Layout).
export { carriersRoutes } from './api/routes.js'
export { createCarriersService } from './service.js'
export type { CarriersService } from './service.js'
// Read by package search and export, composed into their statements.
export { carrierIdsNamed, carrierNames } from './store/package-search.js'
