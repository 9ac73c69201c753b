import { afterAll } from 'vitest';
import { browserUnavailable, removeProfiles } from '../helpers/browser.js';
import { browserDriver } from './browser-driver.js';
import { describeBehaviour } from './driver.js';
import { USAGE_HEADER_ROW } from './table.js';

afterAll(removeProfiles);

if (browserUnavailable() === undefined)
  describeBehaviour(browserDriver('playwright'), {
    timeoutMs: 120_000,
    skip: { [USAGE_HEADER_ROW]: "the page guard does not read a navigation's Content-Usage header yet" },
  });
