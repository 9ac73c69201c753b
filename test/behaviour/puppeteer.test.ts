import { afterAll } from 'vitest';
import { browserUnavailable, removeProfiles } from '../helpers/browser.js';
import { browserDriver } from './browser-driver.js';
import { describeBehaviour } from './driver.js';

afterAll(removeProfiles);

// Registered even without a browser: its scenarios then show as skipped, with the reason.
describeBehaviour(browserDriver('puppeteer'), { timeoutMs: 120_000, skipAll: browserUnavailable() });
