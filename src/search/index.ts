// The search domain's public face: what other domains may use of it (STYLE.md, Layout).
export { searchRoutes } from './api/routes.js'
export { foldTallies, tallySubscription } from './model/tallies.js'
export { createSearchService } from './service.js'
export type { SearchService } from './service.js'
