/**
 * One Redis round trip for the scheduler: connects a lazily connected client first, runs a script
 * (EVALSHA, EVAL on NOSCRIPT), and gives up after `commandTimeoutMs`. Never rejects: a failure is an
 * outcome the caller turns into the in-process fallback.
 */

import { startDeadline } from '../kernel/deadline.js';
import type { RedisScriptClient } from './redis-client.js';
import { type LuaScript, runScript } from './redis-script.js';

export type RedisOutcome =
  | { readonly ok: true; readonly value: unknown }
  | { readonly ok: false; readonly error: unknown };

export type CallRedis = (script: LuaScript, keys: string[], args: string[]) => Promise<RedisOutcome>;

export function createRedisCall(settings: {
  readonly redis: RedisScriptClient;
  readonly connect: (() => Promise<unknown>) | undefined;
  readonly commandTimeoutMs: number;
}): CallRedis {
  const { redis, connect, commandTimeoutMs } = settings;
  let connecting: Promise<unknown> | undefined;

  const ensureConnected = async () => {
    if (connect === undefined || redis.isOpen()) return;
    connecting ??= connect().finally(() => {
      connecting = undefined;
    });
    await connecting;
  };

  return async (script, keys, args) => {
    const attempt = (async () => {
      await ensureConnected();
      return runScript(redis, script, keys, args);
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
}
