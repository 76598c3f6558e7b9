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
import { type BuildOptions, build } from 'esbuild';
import {
  BUNDLE_ALIASES,
  BUNDLE_BANNER,
  BUNDLE_MAIN_FIELDS,
  BUNDLE_MINIFY,
  BUNDLE_TARGET,
  HANDLER_ENTRY,
  SHARDED_HANDLER_ENTRY,
} from '../../infra/constructs/monitorFunction.ts';

const run = promisify(execFile);
const ROOT = fileURLToPath(new URL('../../', import.meta.url));
/** esbuild options equal to the stack's bundling (infra/constructs/monitorFunction.ts). */
const STACK_OPTIONS = {
  bundle: true,
  platform: 'node',
  target: BUNDLE_TARGET,
  format: 'esm',
  minify: BUNDLE_MINIFY,
  mainFields: BUNDLE_MAIN_FIELDS,
  alias: BUNDLE_ALIASES,
  absWorkingDir: ROOT,
  logLevel: 'error',
} as const satisfies BuildOptions;
/** Only the SDK clients and commands the function uses: the floor under any bundle of it. */
const SDK_CLIENTS_ONLY = `
import { GetParametersByPathCommand, SSMClient } from '@aws-sdk/client-ssm';
import { PublishCommand, SNSClient } from '@aws-sdk/client-sns';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { BatchGetCommand, DeleteCommand, DynamoDBDocumentClient, GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
export const clients = [new SSMClient({}), new SNSClient({}), DynamoDBDocumentClient.from(new DynamoDBClient({}))];
export const commands = [GetParametersByPathCommand, PublishCommand, BatchGetCommand, DeleteCommand, GetCommand, PutCommand];
`;

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
    ...STACK_OPTIONS,
    entryPoints: [HANDLER_ENTRY],
    outfile: file,
    sourcemap: true,
    sourcesContent: false,
    banner: { js: BUNDLE_BANNER },
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
    entryPoints: [HANDLER_ENTRY],
    outfile: file,
    bundle: true,
    packages: 'external',
    platform: 'node',
    target: BUNDLE_TARGET,
    format: 'esm',
    logLevel: 'error',
  });
  return file;
}

/** Bytes of the minified bundle by owner, and of the bundles it is compared with. */
interface SizeBreakdown {
  /** 'our code', 'AWS SDK', 'Powertools', 'zod', 'middy', 'other'. */
  byOwner: Record<string, number>;
  /** The sharded-mode entry, `src/lambda/shardedHandler.ts` (adds the SQS client). */
  shardedBytes: number;
  /** The SDK clients and commands the function uses, alone, with the same options. */
  sdkClientsOnlyBytes: number;
  /** The default entry with the SDK's own credential chain (no alias): what the alias saves. */
  withoutAliasBytes: number;
}

function ownerOf(input: string): string {
  const pkg = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(input)?.[1];
  if (pkg === undefined) return input.startsWith('src/') ? 'our code' : 'other';
  if (/^@(aws-sdk|smithy|aws)\//.test(pkg) || ['mnemonist', 'obliterator'].includes(pkg)) return 'AWS SDK';
  if (pkg.startsWith('@aws-lambda-powertools/')) return 'Powertools';
  if (pkg.startsWith('@middy/')) return 'middy';
  return pkg === 'zod' ? 'zod' : 'other';
}

/** Builds in memory with the stack's options and metafiles: where the bytes go. */
async function sizeBreakdown(): Promise<SizeBreakdown> {
  const measure = async (options: BuildOptions) => {
    const result = await build({ ...STACK_OPTIONS, outfile: 'index.mjs', write: false, metafile: true, ...options });
    const output = Object.values(result.metafile?.outputs ?? {})[0];
    if (output === undefined) throw new Error('expected one esbuild output, found none');
    return output;
  };
  const main = await measure({ entryPoints: [HANDLER_ENTRY] });
  const byOwner: Record<string, number> = {};
  for (const [input, { bytesInOutput }] of Object.entries(main.inputs)) {
    const owner = ownerOf(input);
    byOwner[owner] = (byOwner[owner] ?? 0) + bytesInOutput;
  }
  const stdin = { contents: SDK_CLIENTS_ONLY, resolveDir: ROOT, loader: 'js' as const };
  return {
    byOwner,
    shardedBytes: (await measure({ entryPoints: [SHARDED_HANDLER_ENTRY] })).bytes,
    sdkClientsOnlyBytes: (await measure({ stdin })).bytes,
    withoutAliasBytes: (await measure({ entryPoints: [HANDLER_ENTRY], alias: {} })).bytes,
  };
}

interface ImportTiming {
  /** `await import()` of the handler module, ms, per fresh process. */
  importMs: number[];
  /** Whole process: spawn to exit, ms. */
  processMs: number[];
}

const IMPORT_SCRIPT =
  'const t = performance.now(); await import(process.env.BENCH_MODULE); console.log(JSON.stringify({ importMs: performance.now() - t }));';

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

export { buildBundle, buildExternal, importTiming, sizeBreakdown };
