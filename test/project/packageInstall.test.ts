/**
 * `npm ci` of the project on a machine without compilers: a copy of package.json and the lockfile
 * installed with every C/C++ compiler, cmake and make taken off PATH, on the supported Node, with
 * install scripts on, offline (the project's own `npm ci` filled the cache). It installs the whole dev toolchain (about a minute), so it runs in CI (or
 * with CI=1) and is skipped, saying so, elsewhere.
 */
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { pathWithThisNode, ROOT, run } from '../support/npm.ts';

const COMPILER =
  /^(cc|c\+\+|cpp|gcc|g\+\+|clang|clang\+\+|cmake|cmake3|make|gmake|ninja|ld|x86_64-linux-gnu-.*|aarch64-linux-gnu-.*|.*-gcc(-\d+)?|.*-g\+\+(-\d+)?|gcc-\d+|g\+\+-\d+|cpp-\d+)$/;
const skip =
  process.env.CI === undefined ? 'CI only: installs the whole toolchain, about a minute; run with CI=1' : null;

let dir = '';
afterAll(() => {
  if (dir !== '') rmSync(dir, { recursive: true, force: true });
});

/** One directory of links to every program on PATH except compilers and build tools. */
function pathWithoutCompilers(into: string): string {
  mkdirSync(into);
  for (const folder of pathWithThisNode().split(delimiter)) {
    if (!existsSync(folder)) continue;
    for (const name of readdirSync(folder)) {
      if (COMPILER.test(name) || existsSync(join(into, name))) continue;
      symlinkSync(join(folder, name), join(into, name));
    }
  }
  return into;
}

describe.skipIf(skip !== null)(`npm ci without compilers${skip ? ` (SKIPPED: ${skip})` : ''}`, () => {
  it('succeeds with no cc, c++, cmake or make on PATH, and warns about no engine on this Node', () => {
    // Prepare
    dir = mkdtempSync(join(tmpdir(), 'npm-ci-'));
    const project = join(dir, 'project');
    mkdirSync(project);
    for (const file of ['package.json', 'package-lock.json']) copyFileSync(new URL(file, ROOT), join(project, file));
    const bin = pathWithoutCompilers(join(dir, 'bin'));
    const env = { HOME: process.env.HOME ?? dir, PATH: bin, npm_config_ignore_scripts: 'false' };
    expect(run('sh', ['-c', 'command -v cc c++ gcc g++ cmake make || true'], { cwd: project, env }).stdout).toBe('');

    // Act
    const install = run('npm', ['ci', '--offline', '--foreground-scripts', '--no-audit', '--no-fund'], {
      cwd: project,
      env,
    });

    // Assess
    expect([install.status, install.stderr.split('\n').filter((l) => / ERR!|npm error/.test(l))]).toEqual([0, []]);
    expect(`${install.stdout}${install.stderr}`).not.toContain('EBADENGINE');
    expect(existsSync(join(project, 'node_modules/aws-lambda-ric'))).toBe(false);
    const esbuild = run(join(project, 'node_modules/.bin/esbuild'), ['--version'], { cwd: project, env });
    expect([esbuild.status, esbuild.stdout]).toEqual([0, expect.stringMatching(/^\d+\.\d+\.\d+\n$/)]);
  }, 600_000);
});
