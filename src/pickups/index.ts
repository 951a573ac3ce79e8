// The pickups domain's public face: what other domains may use of it (STYLE.md, Layout).
export { pickupsRoutes } from './api/routes.js'
export { PICKUP_IMAGE_TYPES } from './api/schemas.js'
export { purgePickupCodes } from './jobs/pickup-codes-retention.js'
export { newPickupCode } from './model/pickup-code.js'
export { createPickupsService } from './service.js'
export type { PickupsService } from './service.js'
// Read by the notifications' receipt, beside packages' handOverPickups.
export { collectorsOf } from './store/collectors.js'
export type { Collector } from './store/collectors.js'
