/**
 * The Redis call's deadline counts only time our process ran: a stall of ours between asking and the
 * command leaving (a GC pause, a descheduled process) is not Redis failing to answer.
 */
import { describe, expect, it } from 'vitest';
import { createRedisCall, type RedisScriptClient } from '../../src/schedule/redis-client.js';
import { lua } from '../../src/schedule/redis-script.js';

const SCRIPT = lua('return 1');
const TIMEOUT_MS = 200;

/** Blocks the event loop, as a stalled process does. */
function stall(ms: number): void {
  const until = performance.now() + ms;
  while (performance.now() < until) {}
}

/** A server that answers `replyMs` after the command has left (the command leaves on the next turn). */
function answeringClient(replyMs: number): RedisScriptClient & { readonly sent: () => number } {
  let sent = 0;
  const answer = () =>
    new Promise<unknown>((resolve) =>
      setImmediate(() => {
        sent++;
        setTimeout(() => resolve(1), replyMs);
      }),
    );
  return { flavour: 'node-redis', evalSha: answer, eval: answer, isOpen: () => true, sent: () => sent };
}

describe('Redis call deadline', () => {
  it('a stall of our own longer than the timeout, before the command left, is not an outage', async () => {
    const client = answeringClient(20);
    const call = createRedisCall({ redis: client, connect: undefined, commandTimeoutMs: TIMEOUT_MS });
    const outcome = call(SCRIPT, ['k'], []);
    stall(TIMEOUT_MS * 1.5);
    expect(await outcome).toEqual({ ok: true, value: 1 });
    expect(client.sent()).toBe(1);
  });

  it('a server that does not answer still times out', async () => {
    const silent: RedisScriptClient = {
      flavour: 'node-redis',
      evalSha: () => new Promise(() => {}),
      eval: () => new Promise(() => {}),
      isOpen: () => true,
    };
    const call = createRedisCall({ redis: silent, connect: undefined, commandTimeoutMs: TIMEOUT_MS });
    const outcome = await call(SCRIPT, ['k'], []);
    expect(outcome.ok).toBe(false);
    expect(String((outcome as { error: unknown }).error)).toContain(`within ${TIMEOUT_MS} ms`);
  });
});
