// The scan-issues domain's public face: what other domains may use of it (STYLE.md, Layout).
export { scanIssuesRoutes } from './api/routes.js'
export { createScanIssuesService } from './service.js'
export type { ScanIssuesService } from './service.js'
export { openIssueRefs } from './store/open.js'
export type { OpenIssueRef } from './store/open.js'
