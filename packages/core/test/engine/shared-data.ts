/**
 * Reads the shared conformance data and corpus (../shared beside the repository root), never a copy.
 */
import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

/** /work/main/packages/core/test/engine -> /work/shared */
export const sharedDir = fileURLToPath(new URL('../../../../../shared/', import.meta.url));

export function sharedPath(relative: string): string {
  return `${sharedDir}${relative}`;
}

export function readSharedJson<T>(relative: string): T {
  return JSON.parse(readFileSync(sharedPath(relative), 'utf8')) as T;
}

export const hasCorpus = existsSync(sharedPath('corpus/robots'));

export interface GoogleCase {
  readonly id: string;
  readonly robotstxt: string;
  readonly useragent: string;
  readonly url: string;
  readonly allowed: boolean;
  readonly note: string;
}

export interface GoogleOther {
  readonly id: string;
  readonly function:
    | 'IsValidUserAgentToObey'
    | 'GetPathParamsQuery'
    | 'MaybeEscapePattern'
    | 'ParseRobotsTxt';
  readonly input: {
    readonly useragent?: string | null;
    readonly url?: string;
    readonly pattern?: string;
    readonly robotstxt?: string;
    readonly robotstxt_base64?: string;
    readonly handler?: 'RobotsStatsReporter' | 'RobotsParsingReporter';
    readonly line_num?: number;
  };
  readonly expected: unknown;
  readonly note: string;
}
