/**
 * Vitest global setup: where no system Chromium exists, unpacks the one @sparticuz/chromium ships
 * (test/helpers/chromium.ts) once, before any test file starts, so the browser suites run on a
 * machine with only Node and npm. Never fails the run: each browser file says why it skips.
 */
import { preparePackagedChromium } from './chromium.js';

/** Vitest runs a global setup once per project; the reason is worth saying once per run. */
const SAID = Symbol.for('politely.chromium-setup.said');

export default async function setup(): Promise<void> {
  const reason = await preparePackagedChromium();
  const run = globalThis as { [SAID]?: boolean };
  if (reason && !run[SAID]) console.warn(`\n[browser] ${reason}: the browser suites will skip\n`);
  run[SAID] = true;
}
