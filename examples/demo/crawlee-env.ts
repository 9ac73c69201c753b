/**
 * Crawlee set up for a demo: storage in memory only (nothing written under ./storage) and quiet logs.
 */
import { Configuration, LogLevel, log } from '@crawlee/core';

// Crawlee's own MemoryStorage, told never to touch the disk.
const inMemory = { persistStorage: false, writeMetadata: false };

/** A Crawlee configuration whose queues and datasets live in process memory and vanish with it. */
export function memoryConfiguration(): Configuration {
  return new Configuration({ persistStorage: false, purgeOnStart: false, storageClientOptions: inMemory });
}

/**
 * Makes the global configuration in-memory too, for anything that opens a storage without being handed
 * a configuration, and silences Crawlee's logger below `level`.
 */
export function quietInMemoryCrawlee(level: 'warning' | 'off' = 'off'): void {
  const global = Configuration.getGlobalConfig();
  global.set('persistStorage', false);
  global.set('purgeOnStart', false);
  global.set('storageClientOptions', inMemory);
  log.setLevel(level === 'off' ? LogLevel.OFF : LogLevel.WARNING);
}
