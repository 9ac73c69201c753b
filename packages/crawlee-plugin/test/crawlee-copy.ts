/**
 * A second copy of Crawlee in the test's process, for what the plugin must do when the app's Crawlee
 * and the plugin's @crawlee/core are two copies (two packages each bringing theirs): recognise its
 * objects by shape, since none is an instance of the plugin's classes.
 */
import { createRequire } from 'node:module';
import { dirname, sep } from 'node:path';
import type * as crawleeCore from '@crawlee/core';
import { Configuration } from '@crawlee/core';
import type { HttpCrawler } from '@crawlee/http';

/** The Crawlee packages a crawl of the second copy is made of: its core, and the crawlers built on it. */
const COPIED = ['@crawlee/core', '@crawlee/basic', '@crawlee/http'] as const;

export interface CrawleeCopy {
  readonly core: typeof crawleeCore;
  readonly HttpCrawler: typeof HttpCrawler;
}

/**
 * A second copy of Crawlee, as an app holds when two packages each bring their own @crawlee/core: its
 * modules loaded again from the same files, so its classes (Configuration, RequestQueue, the crawler)
 * are not the ones the plugin imports. The first copy's cache entries are put back, so nothing else
 * in the process gets the second one.
 */
export function anotherCopyOfCrawlee(): CrawleeCopy {
  const require = createRequire(import.meta.url);
  const folders = COPIED.map((name) => `${dirname(require.resolve(name))}${sep}`);
  const copied = (key: string) =>
    folders.some((folder) => key.startsWith(folder) && !key.slice(folder.length).includes('node_modules'));
  const saved = Object.entries(require.cache).filter(([key]) => copied(key));
  for (const [key] of saved) delete require.cache[key];
  try {
    const core = require('@crawlee/core') as typeof crawleeCore;
    const http = require('@crawlee/http') as { HttpCrawler: typeof HttpCrawler };
    if (core.Configuration === Configuration) throw new Error('the second copy of Crawlee is the first one');
    return { core, HttpCrawler: http.HttpCrawler };
  } finally {
    // The copy's entries out (a later import would get them), the first copy's back.
    for (const key of Object.keys(require.cache)) if (copied(key)) delete require.cache[key];
    for (const [key, module] of saved) require.cache[key] = module;
  }
}
