/** The part of a package outbox event the notifications read. */
export interface ObservedEvent {
  sub_id: string
  package_id: string
  variant: string
  event_name: string
  /** JSON text (as the outbox row is written) or the object. */
  data: unknown
}

/** The tracking event of a package's first reach of a site: an arrival to tell. */
export const ARRIVAL_EVENT = 'Acceptance'
/** The tracking events of a hand-over: a receipt to send. */
export const PICKUP_EVENTS = ['Delivered', 'PickedUp'] as const

/** What the events of one write ask for: arrivals and pickups per subscription and recipient. */
export interface Planned {
  arrivals: Map<string, Map<string, string[]>>
  pickups: Map<string, Map<string, string[]>>
}

const receiverOf = (data: unknown): string | undefined => {
  const d = (typeof data === 'string' ? JSON.parse(data) : data) as { receiver?: { contactId?: unknown } } | null
  const id = d?.receiver?.contactId
  return typeof id === 'string' ? id : undefined
}

const push = (m: Map<string, Map<string, string[]>>, subId: string, contactId: string, packageId: string) => {
  const bySub = m.get(subId) ?? new Map<string, string[]>()
  m.set(subId, bySub)
  const list = bySub.get(contactId) ?? []
  bySub.set(contactId, list)
  if (!list.includes(packageId)) list.push(packageId)
}

/**
 * Pure: which notifications a write's events call for (the events the outbox hands over, jobs/consume.ts). An arrival is the package's first reach of
 * a site (tracking `Acceptance`); a pickup is `Delivered` or `PickedUp`. Packages without a
 * receiver are nobody's to tell. Every package a write hands over to one recipient goes into one
 * PICKED_UP (a pickup of three parcels is one receipt).
 */
export function planNotifications(events: readonly ObservedEvent[]): Planned {
  const planned: Planned = { arrivals: new Map(), pickups: new Map() }
  for (const e of events) {
    if (e.variant !== 'tracking') continue
    const into =
      e.event_name === ARRIVAL_EVENT
        ? planned.arrivals
        : (PICKUP_EVENTS as readonly string[]).includes(e.event_name)
          ? planned.pickups
          : undefined
    if (!into) continue
    const receiver = receiverOf(e.data)
    if (receiver) push(into, e.sub_id, receiver, e.package_id)
  }
  return planned
}
