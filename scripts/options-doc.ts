/**
 * Writes docs/options.md from the option tables themselves: the names and defaults from each table
 * (`const OPTIONS = { ... } satisfies OptionTable<...>`), the types and the prose from the doc comments
 * of the options interface the table is checked against. The docs cannot drift from the code:
 * test/docs/options-doc.test.ts regenerates the file and fails when it differs ("run npm run
 * docs:options"), and generating fails when a doc comment states a default the table does not have.
 *
 * The tables are read from the source with TypeScript's compiler API rather than imported, so tables
 * that are private to their module need no export (and so nothing is added to any package's surface).
 *
 * `npm run docs:options` writes the file; `npm run docs:options -- --check` only compares.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';

export const REPO_ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
export const OPTIONS_DOC = join(REPO_ROOT, 'docs/options.md');

/** One options table and where users meet it. */
interface TableSource {
  /** The section's heading. */
  readonly title: string;
  /** Prefix of each option's heading (`politeGot` gives `politeGot: spacing`); '' for the shared options. */
  readonly prefix: string;
  /** What the section is for, written here once. */
  readonly intro: string;
  /** The file declaring the table, and the table's name in it. */
  readonly file: string;
  readonly table: string;
  /** The file and name of the options interface the table satisfies (its doc comments are the prose). */
  readonly interfaceFile: string;
  readonly interfaceName: string;
  /**
   * Options that are groups of options (`pacing: { minDelayMs }`), each by its own table and
   * interface in the same files: one heading for the group, one per option in it (`pacing.minDelayMs`).
   */
  readonly groups?: Readonly<Record<string, { readonly table: string; readonly interfaceName: string }>>;
}

const TABLES: readonly TableSource[] = [
  {
    title: 'Shared options (`createPoliteness`, every adapter)',
    prefix: '',
    intro:
      'One options object, `PolitenessOptions`, is what `createPoliteness(options)`, `politeGot(options)`, ' +
      '`politeFetch(options)` and `withPoliteness(crawlerOptions, options)` take. It is checked once, at ' +
      'creation: an unknown name (with "did you mean"), a bad value or a missing `userAgent` is a ' +
      '`TypeError` that names the option and echoes the value. What crawler authors set most is at the ' +
      'top level; the rest is grouped: `robots` (fetching and caching robots.txt), `pacing` (the spacing ' +
      'of requests to one host), `memory` and `metrics` (OpenTelemetry, [metrics.md](metrics.md)). An option that used to be top-level (`minDelayMs`) is ' +
      'refused with its place (`pacing.minDelayMs`).',
    file: 'packages/core/src/facade/options.ts',
    table: 'OPTION_SCHEMA',
    interfaceFile: 'packages/core/src/facade/options.ts',
    interfaceName: 'PolitenessOptions',
    groups: {
      robots: { table: 'ROBOTS_OPTIONS', interfaceName: 'RobotsOptions' },
      pacing: { table: 'PACING_OPTIONS', interfaceName: 'PacingOptions' },
      memory: { table: 'MEMORY_OPTIONS', interfaceName: 'MemoryOptions' },
      metrics: { table: 'METRICS_OPTIONS', interfaceName: 'MetricsOptions' },
    },
  },
  {
    title: 'Crawlee plugin (`withPoliteness`, third argument)',
    prefix: 'withPoliteness',
    intro:
      "The plugin's own options: `withPoliteness(crawlerOptions, politenessOptions, pluginOptions)`. " +
      'The second argument takes the shared options above.',
    file: 'packages/crawlee-plugin/src/plugin-options.ts',
    table: 'PLUGIN_OPTIONS',
    interfaceFile: 'packages/crawlee-plugin/src/types.ts',
    interfaceName: 'CrawleePolitenessOptions',
  },
  {
    title: 'got hook (`politeGot`, second argument)',
    prefix: 'politeGot',
    intro:
      "The hook's own options: `politeGot(options, { spacing })`. The first argument takes the shared options.",
    file: 'packages/got-hook/src/spacing.ts',
    table: 'PACING_OPTIONS',
    interfaceFile: 'packages/got-hook/src/spacing.ts',
    interfaceName: 'GotPacingOptions',
  },
  {
    title: 'fetch wrapper (`politeFetch`)',
    prefix: 'politeFetch',
    intro:
      'Given beside the shared options (`politeFetch({ userAgent, fetch, maxRedirects })`, where `fetch` is ' +
      'also what robots.txt is fetched with), or as the second argument next to a Politeness ' +
      '(`politeFetch(politeness, { fetch, maxRedirects })`).',
    file: 'packages/fetch/src/polite-fetch.ts',
    table: 'WRAP_OPTIONS',
    interfaceFile: 'packages/fetch/src/polite-fetch.ts',
    interfaceName: 'PoliteFetchWrapOptions',
  },
  {
    title: 'Page guard (`createPageGuard`, `@politely/core/browser`)',
    prefix: 'createPageGuard',
    intro: '`createPageGuard(politeness, options)`, for Playwright and Puppeteer pages driven by hand.',
    file: 'packages/core/src/browser/page-guard.ts',
    table: 'OPTIONS',
    interfaceFile: 'packages/core/src/browser/page-guard.ts',
    interfaceName: 'PageGuardOptions',
  },
  {
    title: 'Frontier (`createFrontier`, `@politely/core/frontier`)',
    prefix: 'createFrontier',
    intro: '`createFrontier(politeness, options)`, for worker pools of your own.',
    file: 'packages/core/src/frontier/frontier-options.ts',
    table: 'OPTIONS',
    interfaceFile: 'packages/core/src/frontier/frontier-options.ts',
    interfaceName: 'FrontierOptions',
  },
  {
    title: 'Frontier `next(options)`',
    prefix: 'next',
    intro: "`frontier.next(options)`'s per-call options.",
    file: 'packages/core/src/frontier/call-options.ts',
    table: 'NEXT_OPTIONS',
    interfaceFile: 'packages/core/src/frontier/call-options.ts',
    interfaceName: 'FrontierNextOptions',
  },
  {
    title: 'Frontier `wait(options)`',
    prefix: 'wait',
    intro: "`frontier.wait(options)`'s per-call options.",
    file: 'packages/core/src/frontier/call-options.ts',
    table: 'WAIT_OPTIONS',
    interfaceFile: 'packages/core/src/frontier/call-options.ts',
    interfaceName: 'FrontierWaitOptions',
  },
  {
    title: 'Sitemap follower (`createSitemapFollower`)',
    prefix: 'createSitemapFollower',
    intro:
      '`createSitemapFollower(politeness, options)`, to find pages through the sitemaps robots.txt lists.',
    file: 'packages/core/src/facade/sitemap-follower.ts',
    table: 'OPTIONS',
    interfaceFile: 'packages/core/src/facade/sitemap-follower.ts',
    interfaceName: 'SitemapFollowerOptions',
  },
  {
    title: 'Redis scheduler (`createRedisScheduler`, `@politely/core/scheduler`)',
    prefix: 'createRedisScheduler',
    intro:
      'Only for a scheduler built by hand (`scheduler: createRedisScheduler({ client })`); ' +
      '`store` on Redis or `scheduler: redisClient` builds one with these defaults.',
    file: 'packages/core/src/schedule/redis-scheduler-options.ts',
    table: 'OPTIONS',
    interfaceFile: 'packages/core/src/schedule/redis-scheduler-options.ts',
    interfaceName: 'RedisSchedulerOptions',
  },
  {
    title: 'Memory scheduler (`createMemoryScheduler`, `@politely/core/scheduler`)',
    prefix: 'createMemoryScheduler',
    intro: 'Only for a scheduler built by hand; the default `scheduler` builds one with these defaults.',
    file: 'packages/core/src/schedule/memory-scheduler.ts',
    table: 'OPTIONS',
    interfaceFile: 'packages/core/src/schedule/memory-scheduler.ts',
    interfaceName: 'MemorySchedulerOptions',
  },
  {
    title: 'Memory store (`createMemoryStore`, `@politely/core/cache`)',
    prefix: 'createMemoryStore',
    intro: 'The default robots.txt store when `store` is left out, or built by hand to size it.',
    file: 'packages/core/src/cache/memory-store.ts',
    table: 'OPTIONS',
    interfaceFile: 'packages/core/src/cache/memory-store.ts',
    interfaceName: 'MemoryStoreOptions',
  },
  {
    title: 'Parser (`parseRobotsTxt(text, options)`)',
    prefix: 'parseRobotsTxt',
    intro:
      "The rules engine's parse options. The shared option `robots.parse` takes `precedence`, `wildcards`, " +
      '`agentMatching` and `percentEncoding` from this table (`maxBytes` is `robots.maxBytes` there).',
    file: 'packages/core/src/engine/options.ts',
    table: 'PARSE_OPTIONS',
    interfaceFile: 'packages/core/src/engine/types.ts',
    interfaceName: 'ParseOptions',
  },
];

/** Every options interface the page is written from (file and name), the groups' included. */
export function optionInterfaces(): { readonly file: string; readonly name: string }[] {
  return TABLES.flatMap((table) => [
    { file: table.interfaceFile, name: table.interfaceName },
    ...Object.values(table.groups ?? {}).map((group) => ({
      file: table.interfaceFile,
      name: group.interfaceName,
    })),
  ]);
}

/** A table's default: a value the script could work out, or the source text it could not. */
type DefaultValue =
  | { readonly kind: 'value'; readonly value: unknown }
  | { readonly kind: 'text'; readonly text: string }
  | { readonly kind: 'required' }
  | { readonly kind: 'none' };

interface OptionEntry {
  /** The option's name, by its full path in a group (`pacing.minDelayMs`). */
  readonly name: string;
  readonly internal: boolean;
  readonly default: DefaultValue;
  readonly type: string;
  readonly doc: string;
  /** A group's options (`pacing`), each named by its full path. */
  readonly children?: readonly OptionEntry[];
}

/** Defaults that are objects or functions, said in words. */
const NAMED_DEFAULTS: Readonly<Record<string, string>> = {
  CONSOLE_LOGGER: 'console.warn, for warnings only',
  systemClock: 'Date.now and setTimeout',
};

function program(): { readonly program: ts.Program; readonly checker: ts.TypeChecker } {
  const config = ts.getParsedCommandLineOfConfigFile(
    join(REPO_ROOT, 'tsconfig.json'),
    {},
    {
      ...ts.sys,
      onUnRecoverableConfigFileDiagnostic: (d) => {
        throw new Error(ts.flattenDiagnosticMessageText(d.messageText, '\n'));
      },
    },
  );
  if (config === undefined) throw new Error('tsconfig.json could not be read');
  const files = [...new Set(TABLES.flatMap((t) => [t.file, t.interfaceFile]))].map((f) => join(REPO_ROOT, f));
  const p = ts.createProgram(files, { ...config.options, noEmit: true });
  return { program: p, checker: p.getTypeChecker() };
}

function sourceOf(p: ts.Program, file: string): ts.SourceFile {
  const source = p.getSourceFile(join(REPO_ROOT, file));
  if (source === undefined) throw new Error(`${file}: not found`);
  return source;
}

/** The object literal a `const NAME = { ... } as const satisfies ...` declares. */
function tableLiteral(source: ts.SourceFile, name: string): ts.ObjectLiteralExpression {
  let found: ts.ObjectLiteralExpression | undefined;
  const visit = (node: ts.Node): void => {
    if (ts.isVariableDeclaration(node) && ts.isIdentifier(node.name) && node.name.text === name) {
      let init = node.initializer;
      while (
        init &&
        (ts.isSatisfiesExpression(init) || ts.isAsExpression(init) || ts.isParenthesizedExpression(init))
      ) {
        init = init.expression;
      }
      if (init && ts.isObjectLiteralExpression(init)) found = init;
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  if (found === undefined) throw new Error(`${source.fileName}: no option table \`${name}\``);
  return found;
}

const UNKNOWN = Symbol('unknown');

/** The value of a constant expression in a table (literals, `*`, constants, Infinity), or UNKNOWN. */
function evaluate(node: ts.Expression, checker: ts.TypeChecker, depth = 0): unknown {
  if (depth > 8) return UNKNOWN;
  if (ts.isNumericLiteral(node)) return Number(node.text);
  if (ts.isStringLiteral(node) || ts.isNoSubstitutionTemplateLiteral(node)) return node.text;
  if (node.kind === ts.SyntaxKind.TrueKeyword) return true;
  if (node.kind === ts.SyntaxKind.FalseKeyword) return false;
  if (ts.isParenthesizedExpression(node) || ts.isAsExpression(node))
    return evaluate(node.expression, checker, depth + 1);
  if (ts.isPrefixUnaryExpression(node) && node.operator === ts.SyntaxKind.MinusToken) {
    const v = evaluate(node.operand, checker, depth + 1);
    return typeof v === 'number' ? -v : UNKNOWN;
  }
  if (ts.isBinaryExpression(node) && node.operatorToken.kind === ts.SyntaxKind.AsteriskToken) {
    const a = evaluate(node.left, checker, depth + 1);
    const b = evaluate(node.right, checker, depth + 1);
    return typeof a === 'number' && typeof b === 'number' ? a * b : UNKNOWN;
  }
  if (ts.isPropertyAccessExpression(node) && node.getText() === 'Number.POSITIVE_INFINITY') return Infinity;
  if (ts.isIdentifier(node)) {
    if (node.text === 'Infinity') return Infinity;
    const initializer = declaredValue(node, checker);
    if (initializer) return evaluate(initializer, checker, depth + 1);
  }
  return UNKNOWN;
}

/** The initializer of the constant an identifier names, imports followed; undefined for anything else. */
function declaredValue(node: ts.Identifier, checker: ts.TypeChecker): ts.Expression | undefined {
  let symbol = checker.getSymbolAtLocation(node);
  if (symbol && symbol.flags & ts.SymbolFlags.Alias) symbol = checker.getAliasedSymbol(symbol);
  const declaration = symbol?.valueDeclaration;
  return declaration && ts.isVariableDeclaration(declaration) ? declaration.initializer : undefined;
}

/** The `{ default, required, internal }` an entry's initializer gives, wherever the builder takes it. */
function presenceOf(
  init: ts.Expression,
  checker: ts.TypeChecker,
): { internal: boolean; default: DefaultValue } {
  // An entry shared by several tables (core's SPACING_OPTION) is read where it is declared.
  const shared = ts.isIdentifier(init) ? declaredValue(init, checker) : undefined;
  if (shared) return presenceOf(shared, checker);
  const objects: ts.ObjectLiteralExpression[] = [];
  if (ts.isObjectLiteralExpression(init)) objects.push(init);
  else if (ts.isCallExpression(init)) {
    for (const arg of init.arguments) if (ts.isObjectLiteralExpression(arg)) objects.push(arg);
  }
  let internal = false;
  let value: DefaultValue = { kind: 'none' };
  for (const object of objects) {
    for (const property of object.properties) {
      if (!ts.isPropertyAssignment(property) || !property.name) continue;
      const key = property.name.getText();
      if (key === 'internal' && property.initializer.kind === ts.SyntaxKind.TrueKeyword) internal = true;
      if (key === 'required' && property.initializer.kind === ts.SyntaxKind.TrueKeyword)
        value = { kind: 'required' };
      if (key === 'default') {
        const v = evaluate(property.initializer, checker);
        const text = property.initializer.getText();
        value =
          v === UNKNOWN ? { kind: 'text', text: NAMED_DEFAULTS[text] ?? text } : { kind: 'value', value: v };
      }
    }
  }
  return { internal, default: value };
}

/** Each property of the options interface: its type as written, and its doc comment. */
function interfaceDocs(
  source: ts.SourceFile,
  name: string,
  checker: ts.TypeChecker,
): Map<string, { readonly type: string; readonly doc: string }> {
  let declaration: ts.InterfaceDeclaration | undefined;
  ts.forEachChild(source, (node) => {
    if (ts.isInterfaceDeclaration(node) && node.name.text === name) declaration = node;
  });
  if (declaration === undefined) throw new Error(`${source.fileName}: no interface \`${name}\``);
  const docs = new Map<string, { type: string; doc: string }>();
  for (const symbol of checker.getTypeAtLocation(declaration).getProperties()) {
    const property = symbol.valueDeclaration;
    const node = property && ts.isPropertySignature(property) ? property.type : undefined;
    const type = node ? shownType(node, checker) : checker.typeToString(checker.getTypeOfSymbol(symbol));
    const written = property ? writtenDoc(property) : undefined;
    const doc = (written ?? ts.displayPartsToString(symbol.getDocumentationComment(checker)))
      .replace(/\s*\n\s*/g, ' ')
      .trim();
    docs.set(symbol.name, { type: type.replace(/ \| undefined$/, ''), doc });
  }
  return docs;
}

/**
 * A declaration's doc comment as written, `@` and all. TypeScript's own reading of it
 * (`getDocumentationComment`) ends at the first `@` it takes for a JSDoc tag, and a package name
 * (`@keyv/redis`) is one: the prose was cut mid-sentence there.
 */
export function writtenDoc(declaration: ts.Node): string | undefined {
  const comment = ts.getJSDocCommentsAndTags(declaration).filter(ts.isJSDoc).at(-1);
  if (comment === undefined) return undefined;
  return comment
    .getText()
    .replace(/^\/\*\*|\*\/$/g, '')
    .split('\n')
    .map((line) => line.replace(/^\s*\*(?!\/)\s?/, ''))
    .join('\n');
}

/**
 * A property's type as written, except that a named union (`Spacing`, `HostKeyOption`) is spelt out:
 * a reader should not have to look up `'response' | 'start'`.
 */
function shownType(node: ts.TypeNode, checker: ts.TypeChecker): string {
  const written = node.getText().replace(/\s+/g, ' ');
  if (!ts.isTypeReferenceNode(node)) return written;
  const type = checker.getTypeFromTypeNode(node);
  if (!type.isUnion()) return written;
  const flags = ts.TypeFormatFlags.NoTruncation | ts.TypeFormatFlags.UseSingleQuotesForStringLiteralType;
  const spelt = type.types
    .filter((member) => !(member.flags & ts.TypeFlags.Undefined))
    .map((member) => checker.typeToString(member, undefined, flags))
    .join(' | ');
  return spelt.length <= 100 ? spelt : written;
}

function readTable(p: ts.Program, checker: ts.TypeChecker, table: TableSource, path = ''): OptionEntry[] {
  const literal = tableLiteral(sourceOf(p, table.file), table.table);
  const docs = interfaceDocs(sourceOf(p, table.interfaceFile), table.interfaceName, checker);
  return literal.properties.map((property) => {
    if (!ts.isPropertyAssignment(property)) {
      throw new Error(`${table.file}: ${table.table}: entry \`${property.getText()}\` is not \`name: spec\``);
    }
    const name = property.name.getText();
    const presence = presenceOf(property.initializer, checker);
    // An internal option (`clock`) is typed outside the public interface, and never listed.
    const doc = docs.get(name) ?? (presence.internal ? { type: '', doc: '' } : undefined);
    if (doc === undefined) {
      throw new Error(`${table.file}: ${table.table}.${name} is not a property of ${table.interfaceName}`);
    }
    const group = table.groups?.[name];
    const children = group
      ? readTable(p, checker, { ...table, ...group, groups: {} }, `${path}${name}.`)
      : undefined;
    return {
      name: `${path}${name}`,
      internal: presence.internal,
      default: presence.default,
      type: doc.type,
      doc: doc.doc,
      ...(children ? { children } : {}),
    };
  });
}

/** A value as a user writes it: `1000`, `'skip'`, `true`, `Infinity`. */
function shownValue(value: unknown): string {
  if (typeof value === 'string') return `'${value}'`;
  return String(value);
}

/**
 * A doc comment that states a default ("Default 1000", "Default: 'skip'", "Default `true`") must state
 * the table's: the prose is what users read, the table is what runs.
 */
function checkStatedDefault(table: TableSource, entry: OptionEntry): string | undefined {
  const stated =
    /\bDefault:?\s+`?('[^']*'|-?\d{1,3}(?:,\d{3})+|-?\d[\d_]*(?:\.\d+)?|true|false|Infinity)`?(?=[\s,.;:)]|$)/.exec(
      entry.doc,
    );
  if (stated?.[1] === undefined) return undefined;
  const token = stated[1];
  const value = token.startsWith("'")
    ? token.slice(1, -1)
    : token === 'true'
      ? true
      : token === 'false'
        ? false
        : Number(token.replace(/[_,]/g, ''));
  const actual = entry.default;
  if (actual.kind === 'value' && Object.is(actual.value, value)) return undefined;
  const has =
    actual.kind === 'value' ? shownValue(actual.value) : actual.kind === 'text' ? actual.text : actual.kind;
  return `${table.interfaceName}.${entry.name}: the doc comment says "Default ${token}", the table ${table.file} (${table.table}) has ${has}`;
}

function heading(table: TableSource, name: string): string {
  return table.prefix ? `${table.prefix}: ${name}` : name;
}

/** GitHub's anchor for a heading (what test/docs/links.test.ts checks links against). */
export function slug(text: string): string {
  return text
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\p{M} _-]/gu, '')
    .replace(/ /g, '-');
}

function defaultText(value: DefaultValue, doc: string): string {
  switch (value.kind) {
    case 'value':
      return `\`${shownValue(value.value)}\``;
    case 'text':
      return /^[A-Za-z.]+, /.test(value.text) || / and /.test(value.text) ? value.text : `\`${value.text}\``;
    case 'required':
      return '**required**';
    case 'none':
      // No constant default: the doc comment says what happens when it is left out.
      return /\bDefault\b/.test(doc) ? 'see below' : 'not set';
  }
}

/** One option's heading, type, default and prose. */
function optionSection(table: TableSource, entry: OptionEntry, level: string): string[] {
  return [
    `${level} ${heading(table, entry.name)}`,
    '',
    `Type: \`${entry.type}\`. Default: ${defaultText(entry.default, entry.doc)}.`,
    '',
    entry.doc,
    '',
  ];
}

/** docs/options.md, from the tables as they are in the source. Throws when a doc comment and its table disagree. */
export function generateOptionsDoc(): string {
  const { program: p, checker } = program();
  const problems: string[] = [];
  const sections = TABLES.map((table) => {
    const entries = readTable(p, checker, table).filter((entry) => !entry.internal);
    for (const entry of entries.flatMap((e) => [e, ...(e.children ?? [])])) {
      if (entry.doc === '') {
        problems.push(`${table.interfaceFile}: ${table.interfaceName}.${entry.name} has no doc comment`);
      }
      const problem = checkStatedDefault(table, entry);
      if (problem) problems.push(problem);
    }
    return { table, entries };
  });
  if (problems.length > 0) throw new Error(`Option docs disagree with their tables:\n${problems.join('\n')}`);

  const out: string[] = [
    '# Options reference',
    '',
    '<!-- Generated by `npm run docs:options` (scripts/options-doc.ts) from the option tables and the doc',
    '     comments of their options types. Do not edit by hand: edit the doc comment or the table, then run',
    '     `npm run docs:options`; `npm test` fails while this file and the tables disagree. -->',
    '',
    'Every option of every factory, generated from the tables that validate them, so what you read here is',
    'what runs. Options are checked once, when the factory is called: an unknown name, a bad value or a',
    'missing required option is a `TypeError` naming the option (by its full path, `pacing.minDelayMs`) and',
    'echoing the value; a name that belongs to another argument says where it belongs.',
    '',
    'Sections:',
    '',
    ...sections.map(({ table }) => `- [${table.title}](#${slug(table.title)})`),
    '',
  ];
  for (const { table, entries } of sections) {
    out.push(`## ${table.title}`, '', table.intro, '', '| option | default |', '| --- | --- |');
    // The table lists every option a user sets, the groups' by their full path.
    for (const entry of entries.flatMap((e) => e.children ?? [e])) {
      const title = heading(table, entry.name);
      out.push(
        `| [\`${entry.name}\`](#${slug(title)}) | ${defaultText(entry.default, entry.doc).replaceAll('|', '\\|')} |`,
      );
    }
    out.push('');
    for (const entry of entries) {
      if (entry.children) {
        // A group: its heading says what it is for, one heading per option under it.
        out.push(`### ${heading(table, entry.name)}`, '', `Type: \`object\`. ${entry.doc}`, '');
        for (const child of entry.children) out.push(...optionSection(table, child, '####'));
      } else {
        out.push(...optionSection(table, entry, '###'));
      }
    }
  }
  return `${out.join('\n').trimEnd()}\n`;
}

if (process.argv[1] !== undefined && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const text = generateOptionsDoc();
  if (process.argv.includes('--check')) {
    if (readFileSync(OPTIONS_DOC, 'utf8') !== text) {
      console.error('docs/options.md differs from the option tables: run npm run docs:options');
      process.exit(1);
    }
  } else {
    writeFileSync(OPTIONS_DOC, text);
    console.log(`wrote ${OPTIONS_DOC}`);
  }
}
