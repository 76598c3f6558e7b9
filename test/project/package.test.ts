/**
 * The package as its users get it: `npm pack` (which builds dist/ through `prepack`), installed
 * offline into a temporary consumer, imported from JavaScript, compiled against from TypeScript
 * (`module: nodenext`, no loader), and its bin run.
 */
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { consumerLock, pathWithThisNode, ROOT, run } from '../support/npm.ts';

const root = fileURLToPath(ROOT);
const REPORT = join(root, 'test/fixtures/apache-2.4.71/prefork-busy/report.html');
const TSC = join(root, 'node_modules/typescript/bin/tsc');
// Node 24, the other supported line, from test/node24 (`npm run setup:node24`; CI installs it).
const NODE_24 = join(root, 'test/node24/node_modules/node/bin/node');
const skip24 = existsSync(NODE_24) || process.env.CI !== undefined ? null : 'run npm run setup:node24';

let dir: string;
let consumer: string;
let packed: { filename: string; files: Array<{ path: string }> };
const env = () => ({ ...process.env, PATH: pathWithThisNode(), NO_COLOR: '1' });

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'package-'));
  const pack = run('npm', ['pack', '--pack-destination', dir, '--json', '--silent'], { cwd: root });
  if (pack.status !== 0) throw new Error(`npm pack failed: ${pack.stderr}`);
  packed = JSON.parse(pack.stdout.slice(pack.stdout.indexOf('[')))[0];
  consumer = join(dir, 'consumer');
  const { packageJson, lock } = consumerLock(join(dir, packed.filename));
  mkdirSync(consumer);
  writeFileSync(join(consumer, 'package.json'), JSON.stringify(packageJson));
  writeFileSync(join(consumer, 'package-lock.json'), JSON.stringify(lock));
  const install = run('npm', ['ci', '--offline', '--no-audit', '--no-fund'], { cwd: consumer });
  if (install.status !== 0) throw new Error(`npm ci of the consumer failed: ${install.stderr}`);
}, 240_000);

afterAll(() => {
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe('the packed package', () => {
  it('holds only what users need: built code, types, the bin, README, LICENSE and docs', () => {
    const paths = packed.files.map((f) => f.path).sort();
    const outside = paths.filter((p) => !/^(dist|bin|docs)\/|^(LICENSE|README\.md|package\.json)$/.test(p));
    expect(outside).toEqual([]);
    expect(paths).toEqual(
      expect.arrayContaining([
        'LICENSE',
        'README.md',
        'bin/httpd-status-alerts.mjs',
        'dist/cli.js',
        'dist/index.d.ts',
        'dist/index.js',
        'docs/report-json.md',
        'docs/rules-and-cli.md',
      ]),
    );
    expect(paths.filter((p) => p.endsWith('.ts') && !p.endsWith('.d.ts'))).toEqual([]);
  });

  it('installs only what the library and the CLI import (no Lambda-only packages)', () => {
    const top = readdirSync(join(consumer, 'node_modules')).filter((n) => !n.startsWith('.'));
    const scoped = (scope: string) => readdirSync(join(consumer, 'node_modules', scope)).map((n) => `${scope}/${n}`);
    const installed = top.flatMap((n) => (n.startsWith('@') ? scoped(n) : [n]));
    expect(installed).toContain('zod');
    expect(installed).toContain('@aws-sdk/client-ssm');
    expect(
      installed.filter((n) =>
        /^(@aws-lambda-powertools|@middy)\/|client-(sns|sqs|dynamodb)|^(tsx|esbuild|p-limit)$/.test(n),
      ),
    ).toEqual([]);
  });

  it.for([
    ['22', process.execPath, null],
    [`24${skip24 === null ? '' : ` (SKIPPED: ${skip24})`}`, NODE_24, skip24],
  ] as const)('imports parseReport from JavaScript on Node %s', ([, node, skipped], { skip }) => {
    if (skipped !== null) skip();
    const script = `import { parseReport, NotAStatusReportError } from 'httpd-status-alerts';
      import { readFileSync } from 'node:fs';
      const r = parseReport(readFileSync(${JSON.stringify(REPORT)}, 'latin1'));
      let rejected = false;
      try { parseReport('<html>login</html>'); } catch (e) { rejected = e instanceof NotAStatusReportError; }
      console.log(JSON.stringify([process.versions.node.split('.')[0], r.format, r.scoreboard.length, r.counts.W, rejected]));`;
    const result = run(node, ['--input-type=module', '-e', script], { cwd: consumer, env: env() });
    expect(result.stderr).toBe('');
    expect(JSON.parse(result.stdout)).toEqual([node === NODE_24 ? '24' : '22', 'html', 256, 10, true]);
  });

  it('compiles against its types from TypeScript (module nodenext, no loader), and they catch a wrong type', () => {
    // One compile of two files: the right use passes, the wrong one is the only error.
    const head = `import { parseReport, type StatusReport } from 'httpd-status-alerts';
const report: StatusReport = parseReport('Scoreboard: __W\\n');
`;
    writeFileSync(
      join(consumer, 'right.ts'),
      `${head}const busy: number | null = report.server.busyWorkers;\nconsole.log(busy);\n`,
    );
    writeFileSync(
      join(consumer, 'wrong.ts'),
      `${head}const busy: string = report.server.busyWorkers;\nconsole.log(busy);\n`,
    );
    const compilerOptions = {
      module: 'nodenext',
      moduleResolution: 'nodenext',
      target: 'es2023',
      strict: true,
      noEmit: true,
      skipLibCheck: false,
      types: [],
    };
    writeFileSync(
      join(consumer, 'tsconfig.json'),
      JSON.stringify({ compilerOptions, files: ['right.ts', 'wrong.ts'] }),
    );
    const result = run(process.execPath, [TSC, '-p', '.'], { cwd: consumer, env: env() });
    expect(result.stdout.split('\n').filter((l) => l.includes('error'))).toEqual([
      "wrong.ts(3,7): error TS2322: Type 'number | null' is not assignable to type 'string'.",
    ]);
  });

  it.each([
    [0, ['--version'], '', `${JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')).version}\n`],
    [1, ['check', '--file', '-', '--now', '2026-11-22T12:00:00Z'], 'report', 'WARNING - stdin: client-concentration'],
    [0, ['parse', '-', '--json'], 'report', '{\n  "format": "html",'],
    [3, ['check', '--frobnicate'], '', 'UNKNOWN - check: expected one of the options of --help'],
  ])('runs the bin: exit %i for %j', (code, args, input, start) => {
    const bin = join(consumer, 'node_modules/.bin/httpd-status-alerts');
    const stdin = input === 'report' ? readFileSync(REPORT, 'latin1') : '';
    const result = run(bin, args, { cwd: consumer, env: env(), input: stdin });
    expect(result.status).toBe(code);
    expect(result.stdout.startsWith(start)).toBe(true);
    if (code === 3)
      expect(result.stderr).toMatch(/^check: expected one of the options of --help, found unknown option --frobnicate/);
  });
});
