/**
 * Comments and docs name concepts, never the tracker's issue numbers: a reader of the repository
 * cannot open "issue 21", and the number says nothing about what the code guards. Source, tests,
 * benchmarks, infra and docs are read whole; captures and installed packages are not.
 * bench/README.md is left out while it is a dated diary (its history is being moved to a log), and
 * this file, whose examples cite numbers on purpose.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const FOLDERS = ['src', 'infra', 'test', 'bench', 'docs', 'bin', 'examples', 'rules-tests'];
const TEXT_FILES = /\.(ts|mts|mjs|js|md|sh)$/;
const SKIPPED = new Set(['node_modules', 'bench/README.md', 'test/project/issueNumbers.test.ts']);

/** Every text file under `dir` (relative to the root), skipping SKIPPED. */
function textFiles(dir: string): string[] {
  return readdirSync(join(ROOT, dir), { withFileTypes: true }).flatMap((entry) => {
    const path = `${dir}/${entry.name}`;
    if (SKIPPED.has(entry.name) || SKIPPED.has(path)) return [];
    if (entry.isDirectory()) return textFiles(path);
    return TEXT_FILES.test(entry.name) ? [path] : [];
  });
}

/** `file:line: text` for every line citing an issue by number. */
function issueCitations(file: string, text: string): string[] {
  return text
    .split('\n')
    .flatMap((line, index) => (/\bissues? #?\d+/i.test(line) ? [`${file}:${index + 1}: ${line.trim()}`] : []));
}

describe('issueCitations', () => {
  it.each([
    { line: '// Why: counted once per tick (issue 21).', cited: true },
    { line: ' * Issue 21, scenario 3: two runs', cited: true },
    { line: 'see issues #4 and #5', cited: true },
    { line: '// the issue is the lease, not 21 seconds', cited: false },
    { line: "throw new Error('expected 21 issues')", cited: false },
  ])('$line: cited $cited', ({ line, cited }) => {
    expect(issueCitations('f.ts', line).length > 0).toBe(cited);
  });
});

describe('no comment or doc cites an issue number', () => {
  const files = ['README.md', ...FOLDERS.flatMap(textFiles)];

  it('reads the source, tests and docs (so the check below has files to read)', () => {
    expect(files).toEqual(expect.arrayContaining(['README.md', 'src/core/constants.ts', 'docs/lambda.md']));
  });

  it('names concepts instead', () => {
    const found = files.flatMap((file) => issueCitations(file, readFileSync(join(ROOT, file), 'utf8')));
    expect(found).toEqual([]);
  });
});
