/**
 * A test's stand-in for setTimeout that runs every callback on the next tick, whatever its delay (as
 * got's own suite installs one): politely's waits must end under it as the client's do, not spin.
 */
import { vi } from 'vitest';

export function installInstantTimers(): void {
  vi.stubGlobal('setTimeout', (callback: (...args: unknown[]) => void, _ms?: number, ...args: unknown[]) => {
    // A handle shaped as Node's Timeout where clients call it (got 16 unrefs its request timer).
    const handle = {
      cleared: false,
      unref: () => handle,
      ref: () => handle,
      hasRef: () => false,
      refresh: () => handle,
    };
    process.nextTick(() => {
      if (!handle.cleared) callback(...args);
    });
    return handle;
  });
  vi.stubGlobal('clearTimeout', (handle: { cleared: boolean } | undefined) => {
    if (handle) handle.cleared = true;
  });
}
