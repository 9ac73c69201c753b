/**
 * Native searches that stay linear over a whole text.
 */

/**
 * Finds the next `#`, `:`, space, tab or NUL at or after a position with native indexOf, remembering
 * each answer until the position passes it: positions only grow during a scan, so the total work stays
 * linear in the text however its lines are shaped.
 */
export class Cursor {
  readonly text: string;
  #hash = -1;
  #colon = -1;
  #space = -1;
  #tab = -1;
  #nul = -1;

  constructor(text: string) {
    this.text = text;
  }

  hash(from: number): number {
    if (this.#hash < from) {
      const at = this.text.indexOf('#', from);
      this.#hash = at === -1 ? this.text.length : at;
    }
    return this.#hash;
  }
  colon(from: number): number {
    if (this.#colon < from) {
      const at = this.text.indexOf(':', from);
      this.#colon = at === -1 ? this.text.length : at;
    }
    return this.#colon;
  }
  nul(from: number): number {
    if (this.#nul < from) {
      const at = this.text.indexOf('\0', from);
      this.#nul = at === -1 ? this.text.length : at;
    }
    return this.#nul;
  }
  /** First space or tab at or after `from`. */
  blank(from: number): number {
    if (this.#space < from) {
      const at = this.text.indexOf(' ', from);
      this.#space = at === -1 ? this.text.length : at;
    }
    if (this.#tab < from) {
      const at = this.text.indexOf('\t', from);
      this.#tab = at === -1 ? this.text.length : at;
    }
    return Math.min(this.#space, this.#tab);
  }
}
