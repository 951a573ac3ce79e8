// The directory domain's public face (STYLE.md, Layout): SCIM provisioning and LDAP sync of recipients.
export { directoryAdminRoutes } from './api/admin-routes.js'
export { departuresRoutes } from './api/departures.js'
export { scimRoutes } from './api/scim-routes.js'
export { createDirectory } from './module.js'
export type { Directory } from './module.js'
export { ScimErrorSchema } from './api/scim-schemas.js'
export type { Departure, Departures } from './departures.js'
