// The outbox as a domain (STYLE.md, Layout): what producers write, what consumers read through their
// cursors, and the catalogue of event names. Everything outside events/ comes through this face.
export {
  describeEvents,
  eventCatalogue,
  eventNames,
  PING_EVENT,
  type TrackingEventName,
  type VariantEvent,
} from './catalogue.js'
export { CONSUMERS, consumeEvents, type ConsumedEvent } from './cursors.js'
export { enqueueEvents, eventRows, type OutboxEvent } from './outbox.js'
export { createEventSignal, type EventSignal } from './signal.js'
export {
  claimEvents,
  eventData,
  markDispatched,
  pendingFairShare,
  releaseEvents,
  undispatchedOf,
  type OutboxRow,
} from './store.js'
export type { PackageEventTable } from './tables.js'
export { WEBHOOK_VARIANTS, type WebhookVariant } from './variants.js'
