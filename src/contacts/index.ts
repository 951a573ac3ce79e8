// The contacts domain's public face: what other domains may use of it (STYLE.md, Layout).
export { contactsRoutes } from './api/routes.js'
export { CONTACT_STATUSES, CONTACT_TYPES } from './api/schemas.js'
export { createContactsService } from './service.js'
export type { ContactsService } from './service.js'
export { createRecipientMatcher } from './match-service.js'
export type { RecipientMatch, RecipientMatcher, RecipientQuery } from './match-service.js'
export { personProblems } from './directory.js'
export type { DirectoryContact, DirectoryContacts, DirectoryPerson } from './directory.js'
export type { DirectoryCondition, DirectoryField } from './model/directory-query.js'
export type { SyncReport } from './sync.js'
// Read inside other domains' transactions: package search and export, notifications.
export { contactIdsMatching, contactIdsNamed, contactsForExport } from './store/package-search.js'
export { notifiedContacts } from './store/notified.js'
