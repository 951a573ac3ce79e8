// The notifications domain's public face: what other domains may use of it (STYLE.md, Layout).
export { createNotifications, notificationsRoutes, unsubscribeRoutes } from './module.js'
export type { Notifications, NotificationsOptions } from './module.js'
export { notificationsPreviewRoutes } from './api/preview-routes.js'
