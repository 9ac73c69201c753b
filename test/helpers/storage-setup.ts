/**
 * Vitest global setup: forgets the Crawlee plugin's `politely` key-value store that crawls on Crawlee's
 * defaults (storage on disk under ./storage) left in the working folder by an earlier run. It keeps
 * robots.txt records by origin, and loopback test servers reuse origins (one IP, a port the kernel
 * picks): a record kept from another test's server there would stand for this one's robots.txt.
 * Hygiene only: a crawl on a storage of its own never reads this one (crawl-storage.test.ts shows it
 * with a global storage seeded on purpose); crawls that use the global storage on purpose (the quick
 * start) would otherwise start each run with the last run's records.
 */
import { rmSync } from 'node:fs';
import { join } from 'node:path';

export default function setup(): void {
  rmSync(join(process.cwd(), 'storage', 'key_value_stores', 'politely'), { recursive: true, force: true });
}
