/**
 * In-process word that events were committed to the outbox: the producers say it, the consumers
 * of this process (webhook fan-out, notifications) listen and look at once instead of at their
 * next poll. Consumers in other processes find the events by polling. Producers know no consumer.
 */
export interface EventSignal {
  /** Events were committed (called after the commit). */
  committed(): void
  listen(onCommitted: () => void): void
}

export function createEventSignal(): EventSignal {
  const listeners: Array<() => void> = []
  return {
    committed: () => {
      for (const l of listeners) l()
    },
    listen: (onCommitted) => {
      listeners.push(onCommitted)
    },
  }
}
