/**
 * One Redis round trip, the one way politely talks to Redis (the scheduler, the host signals, the
 * robots.txt fleet lock): connects a lazily connected client first, runs a script (EVALSHA, EVAL on
 * NOSCRIPT), and gives up after `commandTimeoutMs`. Never rejects: a failure is an outcome the caller
 * turns into its fallback.
 *
 * `close()` is the end of the connection's use: it waits for the calls under way (each bounded by its
 * deadline, and the calls they lead to, a give-back after a reservation's reply), then refuses every
 * later one without sending or connecting. A lease released after `close()` resolved was sent on a new
 * connection (@keyv/redis reconnects on use) that kept a finished worker alive for good (issue 43.1).
 */

import { startDeadline } from '../kernel/deadline.js';
import { ClosedError } from '../kernel/errors.js';
import type { RedisScriptClient } from './redis-client.js';
import type { LuaScript } from './redis-script.js';

export type RedisOutcome =
  | { readonly ok: true; readonly value: unknown }
  | { readonly ok: false; readonly error: unknown };

export type CallRedis = (script: LuaScript, keys: string[], args: string[]) => Promise<RedisOutcome>;

export interface RedisCall extends CallRedis {
  /** Waits for the calls under way (and those they lead to, a few rounds at most), then refuses any later one. */
  close(): Promise<void>;
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
    let cancelDeadline = () => {};
    const deadline = new Promise<never>((_, reject) => {
      // Only time our process ran counts (kernel/deadline.ts); setImmediate then lets a reply that
      // arrived during the last slice win, so a stall of ours is never taken for an outage.
      cancelDeadline = startDeadline(commandTimeoutMs, () =>
        setImmediate(() => reject(new Error(`Redis did not answer within ${commandTimeoutMs} ms`))),
      );
    });
    try {
      return { ok: true, value: await Promise.race([attempt, deadline]) };
    } catch (error) {
      attempt.catch(() => {}); // it may still settle after the deadline
      return { ok: false, error };
    } finally {
      cancelDeadline();
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
