/**
 * The webhook variants: one mount each (app.ts), one event list each (event-catalogue.ts), the
 * `type` of a configuration and of a notification. Declared once; every other spelling is typed
 * from it.
 */
export const WEBHOOK_VARIANTS = ['tracking', 'locker'] as const

export type WebhookVariant = (typeof WEBHOOK_VARIANTS)[number]
