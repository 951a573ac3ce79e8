// The reports domain's public face: what other domains may use of it (STYLE.md, Layout).
export { reportsRoutes } from './api/routes.js'
export { createReportsService } from './service.js'
export type { ReportsService } from './service.js'
export { foldReportTallies } from './store/tallies.js'
export { createSummaryService } from './summary-service.js'
export type { SummaryService } from './summary-service.js'
export { createSummaryJob } from './jobs/summary.js'
export type { SummaryJob } from './jobs/summary.js'
