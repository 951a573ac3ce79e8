import type { FastifyPluginAsync } from 'fastify'
import { carriersRoutes } from './carriers/carriers.routes.js'
import type { Companions } from './companions.js'
import { contactsRoutes } from './contacts/contacts.routes.js'
import { customFieldsRoutes } from './customfields/customfields.routes.js'
import { locationsRoutes } from './locations/locations.routes.js'

/** The companion resources of CONTRACT §5 on the receiving interface (bearer auth comes from the parent scope). */
export const companionRoutes: FastifyPluginAsync<{ companions: Companions }> = async (app, { companions }) => {
  await app.register(contactsRoutes, { contacts: companions.contacts })
  await app.register(customFieldsRoutes, { customFields: companions.customFields })
  await app.register(locationsRoutes, { locations: companions.locations })
  await app.register(carriersRoutes, { carriers: companions.carriers })
}
