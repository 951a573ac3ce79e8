// The scan domain's public face: what other domains may use of it (STYLE.md, Layout).
export { scanRoutes } from './api/routes.js'
export { DecodeResponseSchema } from './api/schemas.js'
export { heldPackagesFrom, siteRefsOf } from './model/held-packages.js'
export { createScanImageService } from './scan-image-service.js'
export { createScanService } from './service.js'
export type { ScanService } from './service.js'
