// The customfields domain's public face: what other domains may use of it (STYLE.md, Layout).
export { customFieldsRoutes } from './api/routes.js'
export { DATA_TYPES, FIELD_STATUSES } from './api/schemas.js'
export { checkCustomFieldValues } from './model/custom-field-values.js'
export { createCustomFieldsService } from './service.js'
export type { CustomFieldsService } from './service.js'
// Read by package search and export, composed into their statements.
export { fieldIdsNamed, fieldNames } from './store/package-search.js'
