/**
 * parseRobotsTxt: body -> RobotsTxt. Never throws on content; TypeError only for arguments of the
 * wrong type.
 */
import { GroupBuilder } from './groups.js';
import { scanDirectives } from './lexer.js';
import { readInput } from './options.js';
import { RobotsTxt } from './robots-txt.js';
import type { ParseOptions } from './types.js';

export function parseRobotsTxt(body: string | Uint8Array, options?: ParseOptions): RobotsTxt {
  const { resolved, source } = readInput(body, options, 'parseRobotsTxt');
  const { byteLength, truncated } = source;
  const builder = new GroupBuilder(source, resolved.wildcards, resolved.percentEncoding === 'rfc');
  scanDirectives(source, (record) => builder.take(record));
  const { groups, sitemaps, usage } = builder.finish();
  return new RobotsTxt({
    groups,
    sitemaps,
    usage,
    truncated,
    byteLength,
    options: {
      precedence: resolved.precedence,
      wildcards: resolved.wildcards,
      agentMatching: resolved.agentMatching,
      percentEncoding: resolved.percentEncoding,
    },
  });
}
