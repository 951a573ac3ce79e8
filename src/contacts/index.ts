// The contacts domain's public face: what other domains may use of it (STYLE.md, Layout).
export { contactsRoutes } from './api/routes.js'
export { CONTACT_STATUSES, CONTACT_TYPES } from './api/schemas.js'
export { createContactsService } from './service.js'
export type { ContactsService } from './service.js'
export { createRecipientMatcher } from './match-service.js'
export type { RecipientMatch, RecipientMatcher, RecipientQuery } from './match-service.js'
