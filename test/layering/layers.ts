/**
 * The layering of the repository as a table, and a checker that reads every import of the published
 * sources (TypeScript's own parser, so `import type`, `export ... from`, `import('x')` in a type and a
 * dynamic `import()` are all seen). Layers only import downward; the kernel is what several layers
 * share, so nothing has to reach up for a type:
 *
 *   engine  (pure rules: no I/O)            kernel (errors, abort, clock, deadline, events, decision, client shapes)
 *        \_________________  _________________/
 *                          fetch   schedule -- signals
 *                              \   /     \
 *                              cache     adapter (the adapter kit: send pass, hops)
 *                                 \      /     \
 *                    facade/ (politeness.ts, ...)   browser, frontier (run the kit, name the facade's types)
 *                           /          \
 *    public (index.ts and the subpath entries)   cli
 *
 * Adapters (@politely/got, /fetch, /crawlee) see the core only through its published entry points,
 * and never each other. A violation is reported with the file, the import and the rule it breaks.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join, posix, relative, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';

/** One import as written in a source file. */
export interface ImportRef {
  readonly specifier: string;
  /** `import type` / `export type` / `import('x').T`: erased at runtime. */
  readonly typeOnly: boolean;
}

export interface Violation {
  /** Repository-relative path of the importing file. */
  readonly file: string;
  readonly specifier: string;
  readonly rule: string;
}

/** The layers of packages/core/src, by folder (the root's index.ts is an entry point, as public/ is). */
export type CoreLayer =
  | 'engine'
  | 'kernel'
  | 'fetch'
  | 'schedule'
  | 'signals'
  | 'cache'
  | 'adapter'
  | 'facade'
  | 'browser'
  | 'frontier'
  | 'page-directives'
  | 'metrics'
  | 'public'
  | 'cli';

/**
 * Which core layers each layer may import. A type-only import is allowed where `types` lists the
 * layer (the kernel's Decision names the engine's MatchedRule; the kernel never runs engine code).
 */
export const CORE_LAYERS: Readonly<
  Record<CoreLayer, { readonly imports: readonly CoreLayer[]; readonly types?: readonly CoreLayer[] }>
> = {
  engine: { imports: ['engine', 'kernel'] },
  kernel: { imports: ['kernel'], types: ['engine'] },
  fetch: { imports: ['fetch', 'kernel', 'engine'] },
  schedule: { imports: ['schedule', 'kernel'] },
  // What responses say about a host (latency, errors) and the pace that follows; shared on Redis
  // through the scheduler's client shapes and script runner.
  signals: { imports: ['signals', 'schedule', 'kernel'] },
  cache: { imports: ['cache', 'fetch', 'schedule', 'engine', 'kernel'] },
  // The adapter kit (`@politely/core/adapter`): the send pass, hops, the kit's contract and the key a
  // Politeness carries it under. Below the facade, which builds each instance's kit from its parts;
  // it names no facade type (a hop takes the Politeness by shape).
  adapter: { imports: ['adapter', 'schedule', 'signals', 'kernel'] },
  facade: {
    imports: [
      'facade',
      'metrics',
      'adapter',
      'cache',
      'fetch',
      'schedule',
      'signals',
      'page-directives',
      'engine',
      'kernel',
    ],
  },
  // Page interception for Playwright and Puppeteer: drives a Politeness it is handed, so it names the
  // facade's types (Politeness, Logger) and runs its adapter kit, never facade code; nothing below
  // knows of browsers.
  browser: { imports: ['browser', 'kernel', 'adapter'], types: ['facade', 'fetch'] },
  // Which URL may go next for a worker pool: drives a Politeness it is handed, like browser, so it
  // names the facade's types and runs its adapter kit, never facade code.
  frontier: { imports: ['frontier', 'kernel', 'adapter'], types: ['facade'] },
  // X-Robots-Tag and robots meta tags read into one parsed form: pure, like the engine (product tokens).
  'page-directives': { imports: ['page-directives', 'engine', 'kernel'] },
  // OpenTelemetry metrics: a listener on the facade's event bus and what the facade reports beside
  // it (waits, gauges). Reads the kernel's event types; the facade builds it, nothing else runs it.
  metrics: { imports: ['metrics', 'kernel'] },
  // The subpath entry points (`@politely/core/engine`, ...): lists of re-exports; nothing imports them.
  public: {
    imports: [
      'facade',
      'metrics',
      'adapter',
      'browser',
      'frontier',
      'cache',
      'fetch',
      'schedule',
      'signals',
      'page-directives',
      'engine',
      'kernel',
    ],
  },
  cli: { imports: ['cli', 'facade', 'adapter', 'cache', 'fetch', 'schedule', 'signals', 'engine', 'kernel'] },
};

/** Node modules that do I/O: the engine is pure and may import none (`node:` modules at all, in fact). */
const ENGINE_FORBIDDEN_BUILTIN =
  /^node:|^(fs|net|http|https|http2|dns|child_process|tls|dgram|worker_threads)(\/|$)/;

/** The adapter packages and the only way into the core they may use. */
export const ADAPTERS: Readonly<Record<string, string>> = {
  'packages/got-hook/src': '@politely/got',
  'packages/fetch/src': '@politely/fetch',
  'packages/crawlee-plugin/src': '@politely/crawlee',
};

const CORE_SRC = 'packages/core/src';

/** The core's published entry points (package.json `exports`), as adapters write them. */
export function coreEntryPoints(root: string): Set<string> {
  const manifest = JSON.parse(readFileSync(join(root, 'packages/core/package.json'), 'utf8')) as {
    exports: Record<string, unknown>;
  };
  return new Set(
    Object.keys(manifest.exports)
      .filter((key) => key !== './package.json')
      .map((key) => (key === '.' ? '@politely/core' : `@politely/core/${key.slice(2)}`)),
  );
}

/** The layer of a file under packages/core/src (repository-relative, `/` separated). */
export function coreLayerOf(file: string): CoreLayer | undefined {
  if (!file.startsWith(`${CORE_SRC}/`)) return undefined;
  const rest = file.slice(CORE_SRC.length + 1);
  const folder = rest.includes('/') ? rest.slice(0, rest.indexOf('/')) : undefined;
  // The root entry point is an entry like the subpaths; any other file at the root is in no layer.
  if (folder === undefined) return rest === 'index.ts' ? 'public' : undefined;
  if (folder in CORE_LAYERS) return folder as CoreLayer;
  // A new folder must be placed in the table before it can be imported or import anything.
  return undefined;
}

/** Every import and re-export of one source text. */
export function importsOf(fileName: string, text: string): ImportRef[] {
  const source = ts.createSourceFile(fileName, text, ts.ScriptTarget.Latest, false, ts.ScriptKind.TS);
  const found: ImportRef[] = [];
  const visit = (node: ts.Node): void => {
    if (ts.isImportDeclaration(node) && ts.isStringLiteral(node.moduleSpecifier)) {
      const clause = node.importClause;
      const typeOnly =
        clause !== undefined &&
        (clause.isTypeOnly ||
          (clause.name === undefined &&
            clause.namedBindings !== undefined &&
            ts.isNamedImports(clause.namedBindings) &&
            clause.namedBindings.elements.length > 0 &&
            clause.namedBindings.elements.every((element) => element.isTypeOnly)));
      found.push({ specifier: node.moduleSpecifier.text, typeOnly });
    } else if (
      ts.isExportDeclaration(node) &&
      node.moduleSpecifier &&
      ts.isStringLiteral(node.moduleSpecifier)
    ) {
      const typeOnly =
        node.isTypeOnly ||
        (node.exportClause !== undefined &&
          ts.isNamedExports(node.exportClause) &&
          node.exportClause.elements.length > 0 &&
          node.exportClause.elements.every((element) => element.isTypeOnly));
      found.push({ specifier: node.moduleSpecifier.text, typeOnly });
    } else if (
      ts.isImportTypeNode(node) &&
      ts.isLiteralTypeNode(node.argument) &&
      ts.isStringLiteral(node.argument.literal)
    ) {
      found.push({ specifier: node.argument.literal.text, typeOnly: true });
    } else if (
      ts.isCallExpression(node) &&
      node.expression.kind === ts.SyntaxKind.ImportKeyword &&
      node.arguments[0] !== undefined &&
      ts.isStringLiteral(node.arguments[0])
    ) {
      found.push({ specifier: node.arguments[0].text, typeOnly: false });
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

/** The repository-relative target of a relative specifier (`./x.js` from `a/b.ts` is `a/x.ts`). */
function resolveRelative(file: string, specifier: string): string {
  return posix.normalize(posix.join(posix.dirname(file), specifier)).replace(/\.js$/, '.ts');
}

/** The rule an import breaks, or undefined. `file` is repository-relative with `/` separators. */
export function checkImport(
  file: string,
  ref: ImportRef,
  entryPoints: ReadonlySet<string>,
): string | undefined {
  const { specifier } = ref;
  const relativeImport = specifier.startsWith('.');
  const layer = coreLayerOf(file);
  if (file.startsWith(`${CORE_SRC}/`)) {
    if (layer === undefined) return `${file} is in no layer: add its folder to CORE_LAYERS`;
    if (specifier.startsWith('@politely/')) return `the core never imports a politely package (${layer})`;
    if (layer === 'engine' && ENGINE_FORBIDDEN_BUILTIN.test(specifier))
      return 'the engine is pure: no Node I/O modules';
    if (!relativeImport) return undefined;
    const target = resolveRelative(file, specifier);
    const targetLayer = coreLayerOf(target);
    if (targetLayer === undefined) return `${target} is outside the core's layers`;
    const rule = CORE_LAYERS[layer];
    if (rule.imports.includes(targetLayer)) return undefined;
    if (ref.typeOnly && rule.types?.includes(targetLayer)) return undefined;
    return `${layer} may not import ${targetLayer}${rule.types?.includes(targetLayer) ? ' (types only)' : ''}`;
  }
  for (const [folder, name] of Object.entries(ADAPTERS)) {
    if (!file.startsWith(`${folder}/`)) continue;
    if (relativeImport) {
      const target = resolveRelative(file, specifier);
      return target.startsWith(`${folder}/`) ? undefined : `${name} imports only its own files by path`;
    }
    if (specifier.startsWith('@politely/core')) {
      return entryPoints.has(specifier)
        ? undefined
        : `${name} imports the core only through its entry points (${[...entryPoints].join(', ')})`;
    }
    if (specifier.startsWith('@politely/')) return `adapters never import each other (${name})`;
    return undefined;
  }
  return undefined;
}

/** Every .ts file under `dir` (repository-relative paths). */
function sourceFiles(root: string, dir: string): string[] {
  const out: string[] = [];
  const walk = (absolute: string) => {
    for (const entry of readdirSync(absolute, { withFileTypes: true })) {
      const path = join(absolute, entry.name);
      if (entry.isDirectory()) walk(path);
      else if (entry.name.endsWith('.ts') && !entry.name.endsWith('.d.ts')) out.push(path);
    }
  };
  walk(join(root, dir));
  return out.map((path) => relative(root, path).split(sep).join('/'));
}

/** Every violation in the published sources of the repository at `root`. */
export function checkRepository(root: string): Violation[] {
  const entryPoints = coreEntryPoints(root);
  const violations: Violation[] = [];
  for (const dir of [CORE_SRC, ...Object.keys(ADAPTERS)]) {
    for (const file of sourceFiles(root, dir)) {
      const text = readFileSync(resolve(root, file), 'utf8');
      for (const ref of importsOf(file, text)) {
        const rule = checkImport(file, ref, entryPoints);
        if (rule) violations.push({ file, specifier: ref.specifier, rule });
      }
    }
  }
  return violations;
}

export const REPO_ROOT = fileURLToPath(new URL('../../', import.meta.url));

/**
 * Import circles among the core's files, each as the files round it (`a.ts -> b.ts -> a.ts`), type
 * imports included: a file and the one it imports never need each other.
 */
export function importCircles(root: string): string[] {
  const files = sourceFiles(root, CORE_SRC);
  const known = new Set(files);
  const edges = new Map<string, string[]>();
  for (const file of files) {
    const targets = importsOf(file, readFileSync(resolve(root, file), 'utf8'))
      .filter((ref) => ref.specifier.startsWith('.'))
      .map((ref) => resolveRelative(file, ref.specifier))
      .filter((target) => known.has(target));
    edges.set(file, targets);
  }
  const circles: string[] = [];
  const state = new Map<string, 'open' | 'done'>();
  const path: string[] = [];
  const visit = (file: string): void => {
    state.set(file, 'open');
    path.push(file);
    for (const target of edges.get(file) ?? []) {
      if (state.get(target) === 'open') {
        circles.push([...path.slice(path.indexOf(target)), target].join(' -> '));
      } else if (!state.has(target)) visit(target);
    }
    path.pop();
    state.set(file, 'done');
  };
  for (const file of files) if (!state.has(file)) visit(file);
  return circles;
}
