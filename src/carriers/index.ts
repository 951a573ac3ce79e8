// The carriers domain's public face: what other domains may use of it (STYLE.md, Layout).
export { carriersRoutes } from './api/routes.js'
export { createCarriersService } from './service.js'
export type { CarriersService } from './service.js'
