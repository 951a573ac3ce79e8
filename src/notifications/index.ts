// The notifications domain's public face: what other domains may use of it (STYLE.md, Layout).
export { createNotifications, notificationsRoutes, smsRoutes, smsWebhookRoutes, unsubscribeRoutes } from './module.js'
export type { Notifications, NotificationsOptions } from './module.js'
export { notificationsPreviewRoutes } from './api/preview-routes.js'
// Other domains count sent and failed notifications through this (the reports), never by naming the table.
export { countNotificationsByDay } from './store/counts.js'
// The daily report summary (reports domain) goes out through the same SMTP mailer.
export { createSmtpMailer, UnconfirmedSend } from './delivery/mailer.js'
// The exceptions list reads failed notifications through this (issue 30.3).
export { failedNotifications } from './store/failed.js'
export type { FailedNotification } from './store/failed.js'
