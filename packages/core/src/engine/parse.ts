/**
 * parseRobotsTxt: body -> RobotsTxt. Never throws on content; TypeError only for arguments of the
 * wrong type.
 */
import { shown } from '../kernel/shown.js';
import { readBody } from './body.js';
import { GroupBuilder } from './groups.js';
import { scanDirectives } from './lexer.js';
import { resolveParseOptions } from './options.js';
import { RobotsTxt } from './robots-txt.js';
import type { ParseOptions } from './types.js';

export function parseRobotsTxt(body: string | Uint8Array, options?: ParseOptions): RobotsTxt {
  if (typeof body !== 'string' && !(body instanceof Uint8Array)) {
    throw new TypeError(`parseRobotsTxt: body must be a string or a Uint8Array, got ${shown(body)}`);
  }
  const resolved = resolveParseOptions(options, 'parseRobotsTxt');
  const source = readBody(body, resolved.maxBytes, resolved.charset);
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
