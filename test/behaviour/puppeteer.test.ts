import { afterAll } from 'vitest';
import { browserUnavailable, removeProfiles } from '../helpers/browser.js';
import { browserDriver } from './browser-driver.js';
import { describeBehaviour } from './driver.js';

afterAll(removeProfiles);

if (browserUnavailable() === undefined) describeBehaviour(browserDriver('puppeteer'), { timeoutMs: 120_000 });
