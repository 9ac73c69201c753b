import { afterAll } from 'vitest';
import { browserUnavailable, removeProfiles, sharedChromium } from '../helpers/browser.js';
import { browserDriver } from './browser-driver.js';
import { describeBehaviour } from './driver.js';

// One Chromium for the file, a fresh context of it per scenario (a launch per scenario was most of
// the file's time).
const chromium = sharedChromium('puppeteer');
afterAll(async () => {
  await chromium.close();
  removeProfiles();
});

// Registered even without a browser: its scenarios then show as skipped, with the reason.
describeBehaviour(browserDriver('puppeteer', chromium), {
  timeoutMs: 120_000,
  skipAll: browserUnavailable(),
});
