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
  return {
    emit(event) {
      // A copy: a listener may unsubscribe (itself or another) while the event is delivered.
      for (const listener of [...listeners]) {
        try {
          listener(event);
        } catch {
          // A throwing listener must not break a crawl.
        }
      }
    },
    subscribe(listener) {
      listeners.add(listener);
      return () => {
        listeners.delete(listener);
      };
    },
    get listening() {
      return listeners.size > 0;
    },
    clear() {
      listeners.clear();
    },
  };
}
