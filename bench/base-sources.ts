/**
 * Core's sources at an earlier commit, for a bench's "before" row measured in the same run as the
 * "after" one: `git archive` of packages/core/src at `ref`, unpacked into a temporary folder beside a
 * link to this repository's node_modules (the caller imports from it and removes it).
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const REPO = fileURLToPath(new URL('..', import.meta.url));

/** The folder holding packages/core/src as it was at `ref`; `label` names the temporary folder. */
export function coreSourcesAt(ref: string, label: string): string {
  const folder = mkdtempSync(join(tmpdir(), `politely-${label}-base-`));
  const archive = execFileSync('git', ['-C', REPO, 'archive', '--format=tar', ref, 'packages/core/src'], {
    maxBuffer: 256 * 1024 * 1024,
  });
  execFileSync('tar', ['-x', '-C', folder], { input: archive });
  writeFileSync(join(folder, 'package.json'), '{ "type": "module" }\n');
  symlinkSync(join(REPO, 'node_modules'), join(folder, 'node_modules'));
  return folder;
}
