import { existsSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, expect, it, vi } from 'vitest';
import { HANDLER_ENTRY } from '../../infra/constructs/monitorFunction.ts';
import { synth } from './synth.ts';

// The real synth: esbuild runs locally (never Docker) on src/handler.ts, or on the stub until it lands.
describe(`bundled synth of ${existsSync(HANDLER_ENTRY) ? 'src/handler.ts' : 'the stub handler'}`, () => {
  const { template, outdir, findings } = synth({}, { bundle: true });
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

  it('keeps the AWS SDK inside the bundle instead of importing the runtime copy', () => {
    const code = readFileSync(bundle, 'utf8');
    expect(code.match(/(from|import)\s*["']@aws-sdk\/[^"']+["']/g)).toBeNull();
    expect(code.match(/require\(["']@aws-sdk\//g)).toBeNull();
  });

  it('exports the handler Lambda calls, index.handler', async () => {
    vi.stubEnv('SSM_PREFIX', '/httpd-status-alerts');
    vi.stubEnv('TOPIC_ARN', 'arn:aws:sns:eu-west-1:123456789012:alerts');
    vi.stubEnv('STATE_TABLE', 'state');
    const module = (await import(pathToFileURL(bundle).href)) as { handler?: unknown };
    vi.unstubAllEnvs();
    expect(typeof module.handler).toBe('function');
  });
});
