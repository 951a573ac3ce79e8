// The webhooks domain's public face: what other domains may use of it (STYLE.md, Layout).
export { createWebhooks, webhookRoutes } from './module.js'
export type { WebhookVariant, Webhooks, WebhooksOptions } from './module.js'
