// The holds domain's public face (issue 30.2): recipient holds, forwards, returns to sender.
export { holdsRoutes } from './api/routes.js'
export { createHolds } from './module.js'
// Holds['returns'].openReturnProposals: the open return proposals, for the exceptions list.
export type { Holds } from './module.js'
// Composed into the reminders' statement (notifications/store/reminders.ts).
export { waitCountsFrom } from './store/holds.js'
