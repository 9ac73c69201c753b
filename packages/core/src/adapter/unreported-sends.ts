/**
 * Per host, the requests of this process that hold a pacing slot and have not yet reported their
 * real send (`SendPass.sent`) nor ended. While one is outstanding, the host's next slot is counted
 * from that request's slot, not from its send: a request reserving then keeps core's safety margin.
 */
export interface UnreportedSends {
  /** True while any request to `host` holds a slot with its send unreported. */
  any(host: string): boolean;
  /** Counts one in; the returned function counts it out (once, however often it is called). */
  enter(host: string): () => void;
}

export function createUnreportedSends(): UnreportedSends {
  const counts = new Map<string, number>();
  return {
    any: (host) => (counts.get(host) ?? 0) > 0,
    enter(host) {
      counts.set(host, (counts.get(host) ?? 0) + 1);
      let left = false;
      return () => {
        if (left) return;
        left = true;
        const count = (counts.get(host) ?? 1) - 1;
        if (count > 0) counts.set(host, count);
        else counts.delete(host);
      };
    },
  };
}
