/**
 * The TypeScript blocks of the Markdown pages, and tsc's diagnostics mapped back to the page line they
 * are about, for test/docs/code-blocks.test.ts.
 */

/** One ```ts block of a page. */
export interface CodeBlock {
  /** The page, relative to the repository (`docs/got.md`). */
  readonly file: string;
  /** The line of the opening fence (1-based): the block's first line is the one after it. */
  readonly line: number;
  /** Marked ```ts fragment: a piece of a larger program, shown on a reference page, not compiled. */
  readonly fragment: boolean;
  readonly code: string;
}

/** The ```ts (or ```typescript) blocks of a page, in order. */
export function codeBlocks(markdown: string, file: string): CodeBlock[] {
  const blocks: CodeBlock[] = [];
  const lines = markdown.split('\n');
  for (let i = 0; i < lines.length; i++) {
    const open = /^(`{3,})(\w*)\s*(.*)$/.exec(lines[i] ?? '');
    if (!open) continue;
    const [, fence = '', language = '', info = ''] = open;
    const end = lines.findIndex((text, j) => j > i && text.trimEnd() === fence);
    const close = end === -1 ? lines.length : end;
    if (language === 'ts' || language === 'typescript') {
      blocks.push({
        file,
        line: i + 1,
        fragment: info.split(/\s+/).includes('fragment'),
        code: lines.slice(i + 1, close).join('\n'),
      });
    }
    i = close;
  }
  return blocks;
}

/** A tsc error, by the page line it is about: `docs/got.md:49 TS2304 Cannot find name 'client'.` */
export interface BlockError {
  readonly at: string;
  readonly code: string;
  readonly message: string;
}

/**
 * tsc's `--pretty false` output (`b12.ts(3,5): error TS2304: Cannot find name 'client'.`, continuation
 * lines indented) as errors on the pages, through `blockOf`, which names the block a file holds.
 */
export function blockErrors(
  output: string,
  blockOf: (fileName: string) => CodeBlock | undefined,
): BlockError[] {
  const errors: BlockError[] = [];
  for (const text of output.split('\n')) {
    const m = /^(.+?)\((\d+),\d+\): error (TS\d+): (.*)$/.exec(text.trim());
    if (!m) {
      const last = errors.at(-1);
      if (last && /^\s+\S/.test(text))
        errors[errors.length - 1] = { ...last, message: `${last.message} ${text.trim()}` };
      else if (text.trim() !== '') errors.push({ at: '(tsc)', code: '', message: text.trim() });
      continue;
    }
    const [, fileName = '', line = '0', code = '', message = ''] = m;
    const block = blockOf(fileName.replace(/^.*[\\/]/, ''));
    errors.push({ at: block ? `${block.file}:${block.line + Number(line)}` : fileName, code, message });
  }
  return errors;
}
