/**
 * The one value formatter of politely's error messages (options, scheduler arguments, URLs): what
 * the caller passed and its type, so a message echoes the bad value the way ky and p-queue do.
 */

/**
 * The one way an error message shows a value it refuses: the value and its type, `-1` (number),
 * `"x"` (string), `[object Map]` (object); cut at 80 characters so the message stays one line.
 */
export function shown(value: unknown): string {
  let text: string;
  try {
    text =
      typeof value === 'string'
        ? JSON.stringify(value)
        : typeof value === 'function'
          ? '[function]'
          : String(value);
  } catch {
    text = Object.prototype.toString.call(value);
  }
  if (text.length > 80) text = `${text.slice(0, 77)}...`;
  return `\`${text}\` (${value === null ? 'null' : typeof value})`;
}
