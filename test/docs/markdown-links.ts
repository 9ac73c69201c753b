/**
 * Every relative link of the Markdown files (READMEs, CHANGELOG, docs/) must reach a file, and every
 * `#anchor` a heading of its target, so moving or renaming a docs page cannot leave links to nothing.
 * Anchors are worked out as GitHub makes them (lowercase, punctuation dropped, spaces to hyphens, a
 * repeated heading gets -1, -2 ...), and `<a id>` / `<a name>` count too.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';

/** GitHub's anchor for a heading's text. */
export function slug(text: string): string {
  return text
    .replace(/!?\[([^\]]*)\]\([^)]*\)/g, '$1')
    .replace(/<[^>]+>/g, '')
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\p{M} _-]/gu, '')
    .replace(/ /g, '-');
}

/** The text outside fenced code blocks and inline code, line by line (links and headings in code are not). */
function proseLines(markdown: string): string[] {
  const lines: string[] = [];
  let fence: string | undefined;
  for (const line of markdown.split('\n')) {
    const marker = /^\s*(`{3,}|~{3,})/.exec(line)?.[1];
    if (marker !== undefined) {
      if (fence === undefined) fence = marker[0];
      else if (marker[0] === fence) fence = undefined;
      lines.push('');
      continue;
    }
    lines.push(fence === undefined ? line.replace(/`[^`]*`/g, '``') : '');
  }
  return lines;
}

/** The anchors a Markdown file offers. */
export function anchorsOf(markdown: string): Set<string> {
  const anchors = new Set<string>();
  const seen = new Map<string, number>();
  let fence: string | undefined;
  for (const line of markdown.split('\n')) {
    const marker = /^\s*(`{3,}|~{3,})/.exec(line)?.[1];
    if (marker !== undefined) {
      if (fence === undefined) fence = marker[0];
      else if (marker[0] === fence) fence = undefined;
      continue;
    }
    if (fence !== undefined) continue;
    for (const m of line.matchAll(/<a\s+(?:id|name)="([^"]+)"/g)) if (m[1]) anchors.add(m[1]);
    const heading = /^#{1,6}\s+(.*?)\s*#*\s*$/.exec(line)?.[1];
    if (heading === undefined) continue;
    const base = slug(heading);
    const count = seen.get(base) ?? 0;
    seen.set(base, count + 1);
    anchors.add(count === 0 ? base : `${base}-${count}`);
  }
  return anchors;
}

/** A link into this repository by its GitHub address: the path inside it. */
const REPOSITORY = /^https:\/\/github\.com\/politely-js\/politely(?:\/(?:blob|tree)\/main)?\/?([^?]*)$/;

export interface BrokenLink {
  readonly file: string;
  readonly line: number;
  readonly link: string;
  readonly why: string;
}

/** The broken relative links and anchors of `files` (paths relative to `root`). */
export function brokenLinks(root: string, files: readonly string[]): BrokenLink[] {
  const broken: BrokenLink[] = [];
  const anchorCache = new Map<string, Set<string>>();
  const anchors = (path: string) => {
    let set = anchorCache.get(path);
    if (set === undefined) {
      set = anchorsOf(readFileSync(path, 'utf8'));
      anchorCache.set(path, set);
    }
    return set;
  };
  for (const file of files) {
    const path = join(root, file);
    proseLines(readFileSync(path, 'utf8')).forEach((text, index) => {
      for (const m of text.matchAll(/\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/g)) {
        const link = m[1] ?? '';
        // The package READMEs link into the repository by its GitHub address (they are read on npm too).
        const inRepo = REPOSITORY.exec(link);
        if (inRepo === null && /^[a-z][a-z0-9+.-]*:/i.test(link)) continue; // other sites: not checked offline
        const [target = '', anchor] = (inRepo ? (inRepo[1] ?? '') : link).split('#', 2);
        const targetPath = inRepo
          ? join(root, decodeURIComponent(target))
          : target === ''
            ? path
            : resolve(dirname(path), decodeURIComponent(target));
        const at = { file, line: index + 1, link };
        if (!existsSync(targetPath)) {
          broken.push({ ...at, why: `no such file: ${relative(root, targetPath)}` });
          continue;
        }
        if (anchor === undefined || anchor === '') continue;
        // A folder shows its README.md, under GitHub's own `#readme` anchor.
        const page = statSync(targetPath).isDirectory() ? join(targetPath, 'README.md') : targetPath;
        if (page !== targetPath && anchor === 'readme' && existsSync(page)) continue;
        if (!existsSync(page) || !page.endsWith('.md')) {
          broken.push({ ...at, why: 'an anchor into a file that is not Markdown' });
          continue;
        }
        if (!anchors(page).has(anchor)) {
          broken.push({ ...at, why: `no heading #${anchor} in ${relative(root, page)}` });
        }
      }
    });
  }
  return broken;
}

/**
 * The repository's own Markdown files: git's list (nothing from node_modules or build output), or, in
 * a copy that is not a git checkout (the version matrix's cell folders), a walk that leaves out
 * node_modules, dist and dot folders.
 */
export function markdownFiles(root: string): string[] {
  let listed: string;
  try {
    listed = execFileSync('git', ['ls-files', '--cached', '--others', '--exclude-standard', '*.md'], {
      cwd: root,
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'ignore'],
    });
  } catch {
    return walkMarkdown(root, '');
  }
  return listed.split('\n').filter((file) => file !== '' && existsSync(join(root, file)));
}

function walkMarkdown(root: string, folder: string): string[] {
  const found: string[] = [];
  for (const entry of readdirSync(join(root, folder), { withFileTypes: true })) {
    const path = folder === '' ? entry.name : `${folder}/${entry.name}`;
    if (entry.isDirectory()) {
      if (entry.name === 'node_modules' || entry.name === 'dist' || entry.name.startsWith('.')) continue;
      found.push(...walkMarkdown(root, path));
    } else if (entry.name.endsWith('.md')) {
      found.push(path);
    }
  }
  return found;
}
