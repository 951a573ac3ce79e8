// The shelves domain's public face: what other domains may use of it (STYLE.md, Layout).
export { shelvesRoutes } from './api/routes.js'
export { createShelvesService } from './service.js'
export type { ShelvesService } from './service.js'
export { createShelfAuditsService } from './audits.js'
export type { ShelfAuditsService } from './audits.js'
export { latestMissing } from './store/audits.js'
