/**
 * Redis clients recognised by shape, never imported: node-redis v4/v5 (`evalSha`, `eval(script,
 * {keys, arguments})`, `sendCommand`) and the ioredis family, which includes iovalkey
 * (`evalsha`, `eval(script, numKeys, ...keys, ...args)`). Also finds the client inside a Keyv store
 * backed by @keyv/redis (`store.client` / `store.getClient()`) or @keyv/valkey (`store.redis`).
 *
 * And the one way politely talks to one (`createRedisCall`: the scheduler, the host signals, the
 * robots.txt fleet lock): it connects a lazily connected client first, runs a script (EVALSHA, EVAL
 * on NOSCRIPT), and gives up after `commandTimeoutMs`. Never rejects: a failure is an outcome the
 * caller turns into its fallback. Its `close()` is the end of the connection's use: it waits for the
 * calls under way (each bounded by its deadline, and the calls they lead to, a give-back after a
 * reservation's reply), then refuses every later one without sending or connecting, since a client
 * that reconnects on use (@keyv/redis) would open a connection that keeps a finished worker alive.
 */
import type { RedisClientLike } from '../kernel/clients.js';
import type { Clock } from '../kernel/clock.js';
import { withDeadline } from '../kernel/deadline.js';
import { ClosedError } from '../kernel/errors.js';
import type { LuaScript } from './redis-script.js';

/** The two commands the scheduler needs, whatever the client. */
export interface RedisScriptClient {
  readonly flavour: 'node-redis' | 'ioredis';
  evalSha(sha: string, keys: readonly string[], args: readonly string[]): Promise<unknown>;
  eval(script: string, keys: readonly string[], args: readonly string[]): Promise<unknown>;
  /** False when the client is known not to be connected (node-redis `isOpen`). */
  isOpen(): boolean;
}

type Method = (...args: unknown[]) => unknown;

interface NodeRedisShape {
  evalSha?: Method;
  eval?: Method;
  sendCommand?: Method;
  isOpen?: boolean;
}

interface IoRedisShape {
  evalsha?: Method;
  eval?: Method;
  status?: string;
}

const isObject = (value: unknown): value is Record<string, unknown> =>
  (typeof value === 'object' || typeof value === 'function') && value !== null;

function isNodeRedis(value: unknown): value is NodeRedisShape {
  if (!isObject(value)) return false;
  const client = value as NodeRedisShape;
  const hasEval = typeof client.evalSha === 'function' && typeof client.eval === 'function';
  return hasEval || (typeof client.sendCommand === 'function' && 'isOpen' in client);
}

function isIoRedis(value: unknown): value is IoRedisShape {
  return isObject(value) && typeof (value as IoRedisShape).evalsha === 'function';
}

/** True for an object shaped like a node-redis or ioredis/iovalkey client. */
export function isRedisClient(value: unknown): value is RedisClientLike {
  return isNodeRedis(value) || isIoRedis(value);
}

/** Adapts a client to the scheduler's needs, or undefined when the shape is not recognised. */
export function toScriptClient(client: unknown): RedisScriptClient | undefined {
  if (isNodeRedis(client)) {
    const nodeRedis = client;
    const viaSendCommand = (
      command: string,
      first: string,
      keys: readonly string[],
      args: readonly string[],
    ) =>
      Promise.resolve(
        nodeRedis.sendCommand?.call(nodeRedis, [command, first, String(keys.length), ...keys, ...args]),
      );
    return {
      flavour: 'node-redis',
      evalSha: (sha, keys, args) =>
        typeof nodeRedis.evalSha === 'function'
          ? Promise.resolve(nodeRedis.evalSha.call(nodeRedis, sha, { keys: [...keys], arguments: [...args] }))
          : viaSendCommand('EVALSHA', sha, keys, args),
      eval: (script, keys, args) =>
        typeof nodeRedis.eval === 'function'
          ? Promise.resolve(nodeRedis.eval.call(nodeRedis, script, { keys: [...keys], arguments: [...args] }))
          : viaSendCommand('EVAL', script, keys, args),
      isOpen: () => nodeRedis.isOpen !== false,
    };
  }
  if (isIoRedis(client)) {
    const ioRedis = client;
    return {
      flavour: 'ioredis',
      evalSha: (sha, keys, args) =>
        Promise.resolve(ioRedis.evalsha?.call(ioRedis, sha, keys.length, ...keys, ...args)),
      eval: (script, keys, args) =>
        Promise.resolve(ioRedis.eval?.call(ioRedis, script, keys.length, ...keys, ...args)),
      isOpen: () => ioRedis.status !== 'end',
    };
  }
  return undefined;
}

/** A Redis client found in a store, and how to connect it when the store connects lazily. */
export interface StoreRedisClient {
  readonly client: RedisClientLike;
  /** @keyv/redis connects on first use; its `getClient()` connects it the same way. */
  readonly connect?: () => Promise<unknown>;
}

function readProperty(target: Record<string, unknown>, key: string): unknown {
  try {
    return target[key];
  } catch {
    // A throwing getter on someone else's object is not our business: treat as absent.
    return undefined;
  }
}

/** Keyv, its adapter, and the adapter a Keyv 6 bridge wraps. */
const MAX_STORE_DEPTH = 3;

/**
 * A store and the adapters under it, `depth` levels at most. Keyv 5 keeps the adapter at
 * `keyv.store`; Keyv 6 wraps an adapter written for Keyv 5 (such as @keyv/valkey 1) in a bridge whose
 * own `store` is that adapter.
 */
export function storeLevels(store: unknown, depth = MAX_STORE_DEPTH): Record<string, unknown>[] {
  const levels: Record<string, unknown>[] = [];
  for (
    let level = store;
    isObject(level) && !levels.includes(level) && levels.length < depth;
    level = readProperty(level, 'store')
  ) {
    levels.push(level);
  }
  return levels;
}

/** The Redis client behind a Keyv instance (or a bare Keyv adapter), with its connector. */
export function redisClientOfStore(store: unknown): StoreRedisClient | undefined {
  for (const adapter of storeLevels(store)) {
    // @keyv/redis 4/5: `client` getter and `getClient()`.
    const client = readProperty(adapter, 'client');
    if (isRedisClient(client)) {
      const getClient = readProperty(adapter, 'getClient');
      if (typeof getClient === 'function') {
        return { client, connect: () => Promise.resolve(getClient.call(adapter)) };
      }
      return { client };
    }
    // @keyv/valkey: an iovalkey client at `redis`.
    const redis = readProperty(adapter, 'redis');
    if (isRedisClient(redis)) return { client: redis };
  }
  return undefined;
}

/** The node-redis / ioredis / iovalkey client behind a Keyv store on @keyv/redis or @keyv/valkey. */
export function redisClientFromStore(store: unknown): RedisClientLike | undefined {
  return redisClientOfStore(store)?.client;
}

export type RedisOutcome =
  | { readonly ok: true; readonly value: unknown }
  | { readonly ok: false; readonly error: unknown };

export type CallRedis = (script: LuaScript, keys: string[], args: string[]) => Promise<RedisOutcome>;

export interface RedisCall extends CallRedis {
  /** Waits for the calls under way (and those they lead to, a few rounds at most), then refuses any later one. */
  close(): Promise<void>;
}

/**
 * What the Redis scheduler hands each of its parts (redis-reserve, redis-in-flight, redis-outage,
 * redis-share), each taking its share: its calls, keys, clock, outage state and margins.
 */
export interface RedisLink extends RedisAsk {
  /** Runs a script with the scheduler's deadline; never rejects. */
  readonly callRedis: CallRedis;
  /** `<prefix>{<host>}`: every key of a host starts with it (one Redis Cluster slot). */
  readonly keyOf: (host: string) => string;
  readonly clock: Clock;
  /** True while the scheduler paces through Redis (false: in-process fallback). */
  readonly onRedis: () => boolean;
  /** Reports a failed Redis call (the scheduler falls back and warns once per outage). */
  readonly fallBack: (error: unknown) => void;
  /** Added to every non-zero spacing (whole ms). */
  readonly safetyMarginMs: number;
  /** Keys outlive the times they hold by this much. */
  readonly keySlackMs: number;
  readonly commandTimeoutMs: number;
}

/** The two ways a part runs a script whose failure is an outage. */
export interface RedisAsk {
  /**
   * A reply read by `read` (`what` names the script in the error), or undefined when the call failed
   * or `read` refused the reply: either is reported to `fallBack` as an outage.
   */
  ask<T>(
    script: LuaScript,
    keys: string[],
    args: string[],
    read: (value: unknown) => T | undefined,
    what: string,
  ): Promise<T | undefined>;
  /** A write nobody waits on the reply of: a failure is reported; it settles, never rejects. */
  tell(script: LuaScript, keys: string[], args: string[]): Promise<void>;
}

export function askThrough(callRedis: CallRedis, fallBack: (error: unknown) => void): RedisAsk {
  return {
    async ask(script, keys, args, read, what) {
      const outcome = await callRedis(script, keys, args);
      if (!outcome.ok) return void fallBack(outcome.error);
      const value = read(outcome.value);
      if (value === undefined)
        fallBack(
          new Error(`Unexpected reply from the Redis ${what} script: ${JSON.stringify(outcome.value)}`),
        );
      return value;
    },
    async tell(script, keys, args) {
      const outcome = await callRedis(script, keys, args);
      if (!outcome.ok) fallBack(outcome.error);
    },
  };
}

/** Rounds of calls under way close() waits for: a reply, then the call it leads to. */
const CLOSE_ROUNDS = 3;

export function createRedisCall(settings: {
  readonly redis: RedisScriptClient;
  readonly connect: (() => Promise<unknown>) | undefined;
  readonly commandTimeoutMs: number;
}): RedisCall {
  const { redis, connect, commandTimeoutMs } = settings;
  let connecting: Promise<unknown> | undefined;
  let closed = false;
  const underWay = new Set<Promise<RedisOutcome>>();

  const ensureConnected = async () => {
    if (connect === undefined || redis.isOpen()) return;
    connecting ??= connect().finally(() => {
      connecting = undefined;
    });
    await connecting;
  };

  const run = async (script: LuaScript, keys: string[], args: string[]): Promise<RedisOutcome> => {
    const attempt = (async () => {
      await ensureConnected();
      try {
        return await redis.evalSha(script.sha, keys, args);
      } catch (error) {
        if (!String((error as { message?: unknown } | null)?.message).startsWith('NOSCRIPT')) throw error;
        return await redis.eval(script.source, keys, args);
      }
    })();
    try {
      // Only time our process ran counts (kernel/deadline.ts), so a stall of ours is never taken for an outage.
      const timedOut = () => new Error(`Redis did not answer within ${commandTimeoutMs} ms`);
      return { ok: true, value: await withDeadline(attempt, commandTimeoutMs, timedOut) };
    } catch (error) {
      return { ok: false, error };
    }
  };

  const call = (script: LuaScript, keys: string[], args: string[]): Promise<RedisOutcome> => {
    if (closed) return Promise.resolve({ ok: false, error: new ClosedError('Redis connection') });
    const outcome = run(script, keys, args);
    underWay.add(outcome);
    void outcome.finally(() => underWay.delete(outcome));
    return outcome;
  };

  return Object.assign(call, {
    async close() {
      for (let round = 0; round < CLOSE_ROUNDS; round++) {
        // Calls a caller's catch block or a reply leads to are sent a few microtasks on.
        await new Promise<void>((resolve) => setImmediate(resolve));
        if (underWay.size === 0) break;
        await Promise.allSettled([...underWay]);
      }
      closed = true;
    },
  });
}
