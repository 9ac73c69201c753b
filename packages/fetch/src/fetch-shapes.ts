/**
 * The parts of a fetch implementation politeFetch touches, typed by shape so Node's global fetch,
 * undici's fetch and a user's own wrapper all fit without importing any of them.
 */

/** The subset of a WHATWG Response read between hops. */
export interface ResponseLike {
  readonly status: number;
  /** 'basic' from a fetch of the same origin; politeFetch sets 'cors' after a hop to another origin. */
  readonly type?: string;
  readonly headers: { get(name: string): string | null };
  /** A WHATWG ReadableStream for real fetches; cancelled when a redirect's body is not handed back. */
  readonly body?: unknown;
}

/** Any fetch-compatible function: `(input, init?) => Promise<Response>`. */
// biome-ignore lint/suspicious/noExplicitAny: each implementation types its input and init its own way.
export type AnyFetch = (input: any, init?: any) => Promise<ResponseLike>;
