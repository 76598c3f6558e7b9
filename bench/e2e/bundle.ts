/**
 * The Lambda bundle, built as the stack builds it, and its cold-start proxy: the time to import
 * the handler module in a fresh Node process, bundled vs unbundled.
 */
import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, statSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { build } from 'esbuild';

const run = promisify(execFile);
const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const ENTRY = join(ROOT, 'src/handler.ts');
/** The banner NodejsFunction adds (infra/constructs/monitorFunction.ts). */
const BANNER = "import { createRequire } from 'module';const require = createRequire(import.meta.url);";

interface Bundle {
  /** `cdk synth` or `esbuild` (same options as the stack) when synth failed. */
  source: string;
  dir: string;
  file: string;
  bytes: number;
  synthError: string | null;
  /** Temp dirs to remove at the end. */
  tempDirs: string[];
}

/** Find the asset holding the handler bundle in a cloud assembly. */
function assetBundle(outdir: string): string | null {
  for (const entry of readdirSync(outdir)) {
    const file = join(outdir, entry, 'index.mjs');
    if (entry.startsWith('asset.') && existsSync(file)) return file;
  }
  return null;
}

/** The bundle of `npx cdk synth` (into a temp dir, never the shared cdk.out), else esbuild with the stack's options. */
async function buildBundle(): Promise<Bundle> {
  const outdir = mkdtempSync(join(tmpdir(), 'hsa-bench-cdk-'));
  let synthError: string | null = null;
  try {
    await run(join(ROOT, 'node_modules/.bin/cdk'), ['synth', '--quiet', '--output', outdir], {
      cwd: ROOT,
      timeout: 240_000,
      env: { ...process.env, CDK_DISABLE_CLI_TELEMETRY: 'true' },
    });
  } catch (error) {
    synthError = String((error as { stderr?: string }).stderr ?? (error as Error).message)
      .trim()
      .split('\n')
      .slice(-3)
      .join(' ');
  }
  const synthesized = assetBundle(outdir);
  if (synthesized !== null) {
    const dir = join(synthesized, '..');
    return {
      source: 'cdk synth',
      dir,
      file: synthesized,
      bytes: statSync(synthesized).size,
      synthError,
      tempDirs: [outdir],
    };
  }
  const dir = mkdtempSync(join(tmpdir(), 'hsa-bench-esbuild-'));
  const file = join(dir, 'index.mjs');
  await build({
    entryPoints: [ENTRY],
    outfile: file,
    bundle: true,
    platform: 'node',
    target: 'node22',
    format: 'esm',
    minify: true,
    sourcemap: true,
    sourcesContent: false,
    mainFields: ['module', 'main'],
    banner: { js: BANNER },
    logLevel: 'error',
  });
  return {
    source: 'esbuild (stack options)',
    dir,
    file,
    bytes: statSync(file).size,
    synthError,
    tempDirs: [outdir, dir],
  };
}

/** Our code bundled, every package left to node_modules (the unbundled-dependencies variant). */
async function buildExternal(): Promise<string> {
  const dir = mkdtempSync(join(tmpdir(), 'hsa-bench-external-'));
  // Bare imports resolve upward from the file: give the temp dir the project's node_modules.
  symlinkSync(join(ROOT, 'node_modules'), join(dir, 'node_modules'));
  const file = join(dir, 'index.mjs');
  await build({
    entryPoints: [ENTRY],
    outfile: file,
    bundle: true,
    packages: 'external',
    platform: 'node',
    target: 'node22',
    format: 'esm',
    logLevel: 'error',
  });
  return file;
}

interface ImportTiming {
  /** `await import()` of the handler module, ms, per fresh process. */
  importMs: number[];
  /** Whole process: spawn to exit, ms. */
  processMs: number[];
}

const IMPORT_SCRIPT = `const t = performance.now(); await import(process.env.BENCH_MODULE); console.log(JSON.stringify({ importMs: performance.now() - t }));`;

/** Import `module` in `runs` fresh processes (node flags e.g. `--import tsx`). */
async function importTiming(
  module: string,
  nodeFlags: string[],
  env: Record<string, string>,
  runs: number,
): Promise<ImportTiming> {
  const out: ImportTiming = { importMs: [], processMs: [] };
  for (let i = 0; i < runs; i++) {
    const started = performance.now();
    const { stdout } = await run(process.execPath, [...nodeFlags, '--input-type=module', '-e', IMPORT_SCRIPT], {
      cwd: ROOT,
      timeout: 60_000,
      env: { PATH: process.env.PATH ?? '', ...env, BENCH_MODULE: pathToFileURL(module).href },
    });
    out.processMs.push(performance.now() - started);
    const last = stdout.trim().split('\n').at(-1) ?? '{}';
    out.importMs.push((JSON.parse(last) as { importMs: number }).importMs);
  }
  return out;
}

export { type Bundle, buildBundle, buildExternal, ENTRY, type ImportTiming, importTiming };
