/**
 * One lookup per origin at a time, shared by every caller that asks while it runs. `forget` detaches
 * the lookup under way: it still answers its callers, but `isCurrent` tells it to keep nothing, so the
 * next lookup starts afresh.
 */
export interface SingleFlight<T> {
  /** The lookup under way for `key`, or a new one started with the key's current generation. */
  run(key: string, start: (generation: number) => Promise<T>): Promise<T>;
  /** The key's generation: bumped by `forget` while a lookup is under way. */
  generation(key: string): number;
  /** False once the key was forgotten after `generation` was read: results are answered, not kept. */
  isCurrent(key: string, generation: number): boolean;
  /** Detaches the lookup under way, if any. */
  forget(key: string): void;
}

export function createSingleFlight<T>(): SingleFlight<T> {
  const inFlight = new Map<string, Promise<T>>();
  const generations = new Map<string, number>();
  const generation = (key: string) => generations.get(key) ?? 0;
  return {
    run(key, start) {
      const flying = inFlight.get(key);
      if (flying) return flying;
      const started: Promise<T> = start(generation(key)).finally(() => {
        // After a forget, a newer lookup may hold the seat: leave it.
        if (inFlight.get(key) === started) inFlight.delete(key);
      });
      inFlight.set(key, started);
      return started;
    },
    generation,
    isCurrent: (key, at) => generation(key) === at,
    forget(key) {
      // Only a lookup under way needs telling apart from the next one.
      if (inFlight.delete(key)) generations.set(key, generation(key) + 1);
    },
  };
}
