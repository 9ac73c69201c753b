/**
 * Test data of the engine suites. Google's conformance expectations are facts and live in the repository
 * (`./conformance/`, with their provenance), so a fresh clone runs them. The real-world corpus (2,476
 * files) is large and stays optional: it is read from ../shared beside the repository root when present.
 */
import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

/** The in-repo copy of Google's conformance JSON. */
export const conformanceDir = fileURLToPath(new URL('./conformance/', import.meta.url));

/** <repo>/packages/core/test/engine -> <repo>/../shared */
export const sharedDir = fileURLToPath(new URL('../../../../../shared/', import.meta.url));

export function sharedPath(relative: string): string {
  return `${sharedDir}${relative}`;
}

/** Reads one of the in-repo conformance files, e.g. `google-robotstxt-cases.json`. */
export function readConformanceJson<T>(file: string): T {
  return JSON.parse(readFileSync(`${conformanceDir}${file}`, 'utf8')) as T;
}

export const hasCorpus = existsSync(sharedPath('corpus/robots'));

/** How to get the optional corpus, for the loud skip message. */
export const CORPUS_HOW_TO =
  'put the shared data folder (with corpus/robots and corpus/urls.jsonl) beside the repository as ../shared, then rerun `npx vitest run packages/core/test/engine/corpus.test.ts`';

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
