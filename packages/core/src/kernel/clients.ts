/**
 * The shapes of the clients users hand us (a Keyv store, a Redis client). Recognised by shape and
 * never imported, so neither keyv nor a Redis library is a runtime dependency. The facade's options,
 * the cache and the schedulers all take them, so they sit in the kernel below all three.
 */

/**
 * The store contract: anything Keyv-shaped. Keyv 5 and 6 instances satisfy it by shape; keyv is never
 * imported at runtime. Values we write are plain JSON-safe objects.
 */
export interface KeyvLike {
  get(key: string): Promise<unknown> | unknown;
  set(key: string, value: unknown, ttlMs?: number): Promise<unknown> | unknown;
  delete(key: string): Promise<unknown> | unknown;
}

/** A node-redis (v4+) or ioredis client; recognised by shape, never imported. */
export type RedisClientLike = object;
