/**
 * The one value formatter of politely's error messages (options, scheduler arguments, URLs): what
 * the caller passed and its type, so a message echoes the bad value the way ky and p-queue do.
 */

import { redactCredentials } from './redact.js';

/**
 * The one way an error message shows a value it refuses: the value and its type, `-1` (number),
 * `"x"` (string), `{ request: 5000 }` (object), `[object Map]` (object); cut at 80 characters so the
 * message stays one line. A URL's userinfo is cut out (`store: 'redis://:secret@host'`).
 */
export function shown(value: unknown): string {
  let text: string;
  try {
    text = brief(value, 0);
  } catch {
    text = Object.prototype.toString.call(value);
  }
  if (text.length > 80) text = `${text.slice(0, 77)}...`;
  return `\`${text}\` (${value === null ? 'null' : typeof value})`;
}

/** A value as code would write it: a plain object or array by its entries, two levels deep. */
function brief(value: unknown, depth: number): string {
  if (typeof value === 'string') return JSON.stringify(redactCredentials(value));
  if (typeof value === 'function') return '[function]';
  if (value === null || typeof value !== 'object') return String(value);
  if (depth > 1) return Array.isArray(value) ? '[...]' : '{...}';
  if (Array.isArray(value)) return `[${value.map((item) => brief(item, depth + 1)).join(', ')}]`;
  const prototype = Object.getPrototypeOf(value);
  // A Map, a Keyv, a URL: by its own name, not by its insides.
  if (prototype !== Object.prototype && prototype !== null) return String(value);
  const entries = Object.entries(value).map(([key, item]) => `${key}: ${brief(item, depth + 1)}`);
  return entries.length === 0 ? '{}' : `{ ${entries.join(', ')} }`;
}
