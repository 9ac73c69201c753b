/** What a frontier hands out: anything with a URL, and an id when the caller's queue gives one. */
export interface FrontierItem {
  readonly url: string;
  /** Two items with one id are one request (a queue that serves a request again after its lock lapsed). */
  readonly id?: string | undefined;
}
