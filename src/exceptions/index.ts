// The exceptions domain's public face (STYLE.md, Layout): issue 30.3, every parcel that needs something done.
export { exceptionsRoutes } from './api/routes.js'
export { createExceptionsService } from './service.js'
export type { ExceptionsService } from './service.js'
// The kinds, in their order, for the console (app/console/vocabulary.ts).
export { KIND_NAMES as EXCEPTION_KINDS } from './model/kinds.js'
