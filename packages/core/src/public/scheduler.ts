/**
 * `@politely/core/scheduler`: the per-host schedulers on their own, for a crawler that paces without
 * the facade, or shares one Redis scheduler between several Politeness instances (pass it as the
 * `scheduler` option). Also the contract a custom scheduler implements.
 */

export type { RedisClientLike } from '../kernel/clients.js';
export { type Clock, systemClock } from '../kernel/clock.js';
export type { InFlightLease, InFlightOptions } from '../schedule/in-flight.js';
export {
  createMemoryScheduler,
  type MemoryScheduler,
  type MemorySchedulerOptions,
} from '../schedule/memory-scheduler.js';
export { isRedisClient, redisClientFromStore } from '../schedule/redis-client.js';
export {
  createRedisScheduler,
  DEFAULT_REDIS_PREFIX,
  type RedisScheduler,
  type RedisSchedulerOptions,
} from '../schedule/redis-scheduler.js';
export type { Reservation, ReserveOptions, Scheduler, TryReservation } from '../schedule/types.js';
