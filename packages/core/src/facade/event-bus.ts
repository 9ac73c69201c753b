/**
 * The one way events reach listeners: `subscribe`. The `onEvent` option is a subscription made when
 * the instance is created. A listener that throws is the listener's bug: it must not break a crawl,
 * nor keep the other listeners from hearing the event.
 */
import type { EventSink, PolitelyEvent } from '../kernel/events.js';

export interface EventBus {
  emit(event: PolitelyEvent): void;
  /** Returns the unsubscribe function. */
  subscribe(listener: EventSink): () => void;
  /** Whether anyone listens (building an event that nobody hears is skipped). */
  readonly listening: boolean;
  /** Drops every listener (close). */
  clear(): void;
}

export function createEventBus(): EventBus {
  const listeners = new Set<EventSink>();
  // Copied when a listener comes or goes, not per event: one subscribed or unsubscribed while an
  // event is delivered changes who hears the next one, not this one.
  let delivered: readonly EventSink[] = [];
  const changed = () => {
    delivered = [...listeners];
  };
  return {
    emit(event) {
      for (const listener of delivered) {
        try {
          listener(event);
        } catch {
          // A throwing listener must not break a crawl.
        }
      }
    },
    subscribe(listener) {
      listeners.add(listener);
      changed();
      return () => {
        if (listeners.delete(listener)) changed();
      };
    },
    get listening() {
      return delivered.length > 0;
    },
    clear() {
      listeners.clear();
      changed();
    },
  };
}
