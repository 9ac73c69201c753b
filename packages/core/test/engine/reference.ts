/**
 * A slow, obviously-correct reference for differential tests: group selection straight from RFC 9309
 * 2.2.1 over the serialized groups, and each pattern matched by dynamic programming over the whole
 * path (no index, no fast paths, no segment tricks). Longest pattern wins, allow wins ties, the first
 * line reports.
 */
import type { SerializedRobotsTxt } from '../../src/engine/index.js';

/** Does `pattern` (RFC 9309 syntax: `*` any run, final `$` end) match a prefix of `path`? */
export function referenceMatches(pattern: string, path: string): boolean {
  const anchored = pattern.endsWith('$');
  const body = anchored ? pattern.slice(0, -1) : pattern;
  // No `*`: the pattern is a plain prefix (with a final `$`, the whole path). What the dynamic program
  // below computes for it, read directly: most real-world rules are such, and the corpus differential
  // spent most of its time building the program's arrays for them.
  if (!body.includes('*')) return anchored ? path === body : path.startsWith(body);
  // reach[j] = 1: body[0..i) can consume exactly path[0..j).
  let reach = new Uint8Array(path.length + 1);
  let next = new Uint8Array(path.length + 1);
  reach[0] = 1;
  for (let i = 0; i < body.length; i++) {
    next.fill(0);
    let any = false;
    const char = body[i];
    for (let j = 0; j <= path.length; j++) {
      if (reach[j] === 0) continue;
      if (char === '*') {
        next.fill(1, j);
        any = true;
        break;
      }
      if (j < path.length && path[j] === char) {
        next[j + 1] = 1;
        any = true;
      }
    }
    if (!any) return false;
    [reach, next] = [next, reach];
  }
  return anchored ? reach[path.length] === 1 : reach.includes(1);
}

export interface ReferenceVerdict {
  readonly allowed: boolean;
  readonly rule?: {
    readonly directive: 'allow' | 'disallow';
    readonly pattern: string;
    readonly line: number;
  };
}

interface Rule {
  readonly allow: boolean;
  readonly pattern: string;
  readonly line: number;
}

export function referenceRules(json: SerializedRobotsTxt, productToken: string): Rule[] {
  const token = productToken.toLowerCase();
  const own = json.g.filter((group) => token.length > 0 && group.a.includes(token));
  const selected = own.length > 0 ? own : json.g.filter((group) => group.a.includes('*'));
  const rules: Rule[] = [];
  for (const group of selected) {
    for (let i = 0; i < group.r.length; i += 2) {
      const line = group.r[i] as number;
      rules.push({ allow: line > 0, pattern: group.r[i + 1] as string, line: Math.abs(line) });
    }
  }
  return rules;
}

export function referenceVerdict(rules: readonly Rule[], path: string): ReferenceVerdict {
  let best: Rule | undefined;
  for (const rule of rules) {
    if (rule.pattern.length === 0 || !referenceMatches(rule.pattern, path)) continue;
    if (
      best === undefined ||
      rule.pattern.length > best.pattern.length ||
      (rule.pattern.length === best.pattern.length && rule.allow && !best.allow) ||
      (rule.pattern.length === best.pattern.length && rule.allow === best.allow && rule.line < best.line)
    ) {
      best = rule;
    }
  }
  if (best === undefined) return { allowed: true };
  return {
    allowed: best.allow,
    rule: { directive: best.allow ? 'allow' : 'disallow', pattern: best.pattern, line: best.line },
  };
}
