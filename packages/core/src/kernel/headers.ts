/**
 * Response headers as the clients hand them over, and the one way every layer reads one: a Fetch
 * `Headers` (`get`), or a record (Node, got, Playwright and Puppeteer give lower-case names; a record
 * built by hand may not) whose value is a string, a list of lines or a number.
 */
export type ResponseHeaders =
  | { get(name: string): string | null }
  | Readonly<Record<string, string | readonly string[] | number | null | undefined>>;

/** Header `name` (lower case) as given: one string, its lines, or undefined when absent. */
export function headerOf(
  headers: ResponseHeaders | null | undefined,
  name: string,
): string | readonly string[] | undefined {
  if (headers == null || typeof headers !== 'object') return undefined;
  let value: unknown;
  if (typeof (headers as { get?: unknown }).get === 'function') {
    value = (headers as { get(name: string): string | null }).get(name);
  } else {
    const record = headers as Readonly<Record<string, unknown>>;
    value = record[name] ?? Object.entries(record).find(([key]) => key.toLowerCase() === name)?.[1];
  }
  if (typeof value === 'number') return String(value);
  if (Array.isArray(value)) return value.filter((line) => typeof line === 'string');
  return typeof value === 'string' ? value : undefined;
}

/**
 * A header's lines, from a list or split at line breaks (Chromium's DevTools protocol, so Puppeteer,
 * joins repeated headers so; a field value never holds one, RFC 9110 5.5). None when absent.
 */
export function headerLines(value: string | readonly string[] | null | undefined): string[] {
  if (value === null || value === undefined) return [];
  return (typeof value === 'string' ? [value] : value).flatMap((line) => String(line).split('\n'));
}
