import { existsSync, readFileSync, statSync } from 'node:fs';
import { isBuiltin } from 'node:module';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, expect, it, vi } from 'vitest';
import { synth } from './synth.ts';

// The real synth: esbuild runs locally (never Docker), on the entry of each shard mode.
describe.each([
  {
    shardMode: 'none',
    entry: 'src/lambda/handler.ts',
    env: {},
    // The SQS client rides only in the sharded bundle.
    contains: { SendMessageBatch: false, LambdaCredentialsError: true, 'defaultProvider::fromSSO': false },
  },
  {
    shardMode: 'sqs',
    entry: 'src/lambda/shardedHandler.ts',
    env: { SHARD_MODE: 'sqs', SHARD_QUEUE_URL: 'https://sqs.eu-west-1.amazonaws.com/123456789012/shards' },
    contains: { SendMessageBatch: true, LambdaCredentialsError: true, 'defaultProvider::fromSSO': false },
  },
])('bundled synth with shardMode=$shardMode ($entry)', ({ shardMode, env, contains }) => {
  const { template, outdir, findings } = synth({ shardMode }, { bundle: true });
  const fn = Object.values(template.findResources('AWS::Lambda::Function'))[0] as {
    Properties: { Code: { S3Key: string } };
  };
  const assetDir = join(outdir, `asset.${fn.Properties.Code.S3Key.replace(/\.zip$/, '')}`);
  const bundle = join(assetDir, 'index.mjs');

  it('writes one minified ESM file with its source map, and passes cdk-nag', () => {
    expect([existsSync(bundle), existsSync(`${bundle}.map`), findings]).toEqual([true, true, []]);
    const code = readFileSync(bundle, 'utf8');
    expect(
      code.startsWith("import { createRequire } from 'module';const require = createRequire(import.meta.url);"),
    ).toBe(true);
    expect(code.trimEnd().endsWith('//# sourceMappingURL=index.mjs.map')).toBe(true);
    console.info(`bundle ${bundle}: ${statSync(bundle).size} bytes`);
  });

  it("carries Lambda's credential sources instead of the SDK's default chain, and SQS only when sharded", () => {
    const code = readFileSync(bundle, 'utf8');
    const found = Object.fromEntries(Object.keys(contains).map((text) => [text, code.includes(text)]));
    expect(found).toEqual(contains);
  });

  it('imports only Node built-ins: the AWS SDK and every other package are inside', () => {
    const code = readFileSync(bundle, 'utf8');
    const specifiers = new Set<string>();
    for (const pattern of [
      /(?:^|[;}\n])import\s*(?:[\w$*{},\s]+?from\s*)?["']([^"']+)["']/g,
      /\bimport\(\s*["']([^"']+)["']\s*\)/g,
    ]) {
      for (const match of code.matchAll(pattern)) specifiers.add(match[1] ?? '');
    }
    expect([...specifiers].filter((s) => !isBuiltin(s))).toEqual([]);
    expect(specifiers.size).toBeGreaterThan(0);
  });

  // The asset directory lies under the OS temp dir, with no node_modules above it, as in Lambda.
  it('loads on its own and exports the handler Lambda calls, index.handler', async () => {
    vi.stubEnv('SSM_PREFIX', '/httpd-status-alerts');
    vi.stubEnv('TOPIC_ARN', 'arn:aws:sns:eu-west-1:123456789012:alerts');
    vi.stubEnv('STATE_TABLE', 'state');
    for (const [name, value] of Object.entries(env)) vi.stubEnv(name, value);
    const module = (await import(pathToFileURL(bundle).href)) as { handler?: unknown };
    vi.unstubAllEnvs();
    expect(typeof module.handler).toBe('function');
  });
});
