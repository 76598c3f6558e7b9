/**
 * What each command loads at start-up, read from the static imports of the source: a Nagios
 * plugin starts every minute, so `check` and `parse` must not pull in the AWS SDK or the schema
 * library (those load with `await import(...)` in the commands that use them). Speed itself is
 * measured by `npm run bench:cli`, not here.
 */
import { readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

const SRC = resolve(import.meta.dirname, '../../src');
const STATIC_IMPORT = /^import\s+(?!type\s)(?:[^;]*?\sfrom\s+)?'([^']+)';/gms;

/** Every module reached from `entry` by static (non-type) imports: project files and packages. */
function staticGraph(entry: string): { files: Set<string>; packages: Set<string> } {
  const files = new Set<string>();
  const packages = new Set<string>();
  const visit = (file: string) => {
    if (files.has(file)) return;
    files.add(file);
    for (const [, spec] of readFileSync(file, 'utf8').matchAll(STATIC_IMPORT)) {
      if (spec === undefined) continue;
      if (spec.startsWith('.')) visit(join(dirname(file), spec));
      else if (!spec.startsWith('node:'))
        packages.add(spec.startsWith('@') ? spec.split('/').slice(0, 2).join('/') : (spec.split('/')[0] as string));
    }
  };
  visit(entry);
  return { files, packages };
}

describe('start-up: what a command loads before it runs', () => {
  it.each([
    ['the command line itself (--help, --version)', 'cli.ts'],
    ['check (without --rules, --silences or --state)', 'cli/checkRun.ts'],
    ['parse', 'cli/parseRun.ts'],
  ])('%s loads no package: no AWS SDK, no zod', (_, entry) => {
    expect([...staticGraph(join(SRC, entry)).packages]).toEqual([]);
  });

  it('the configuration commands do load the SSM client and the schemas (on first use)', () => {
    expect([...staticGraph(join(SRC, 'cli/commandSupport.ts')).packages]).toContain('@aws-sdk/client-ssm');
    expect([...staticGraph(join(SRC, 'cli/rulesCommand.ts')).packages]).toContain('zod');
  });
});
