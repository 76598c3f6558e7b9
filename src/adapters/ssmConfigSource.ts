/**
 * Configuration from SSM Parameter Store through Powertools' SSMProvider: the four folders under
 * the prefix (GetParametersByPath, recursive, paged, cached for `maxAgeSeconds`) and secrets.
 */
import type { SSMProvider } from '@aws-lambda-powertools/parameters/ssm';
import type { ConfigSource } from '../app/ports.ts';
import type { RawConfig } from '../core/monitorConfig.ts';

class SecretNotFoundError extends Error {
  constructor(name: string, options?: ErrorOptions) {
    super(`expected the SSM parameter ${name} to exist and be readable, found none`, options);
    this.name = 'SecretNotFoundError';
  }
}

/**
 * @example
 * const source = createSsmConfigSource(new SSMProvider(), '/httpd-status-alerts', 60);
 * const raw = await source.loadRaw();
 */
function createSsmConfigSource(provider: SSMProvider, prefix: string, maxAgeSeconds: number): ConfigSource {
  // Powertools caches by [name, transform] and ignores `decrypt`: always pass the same flag.
  const options = { recursive: true, decrypt: true, maxAge: maxAgeSeconds } as const;

  async function folder(name: string, fresh: boolean): Promise<Record<string, string>> {
    const path = `${prefix}/${name}`;
    const values = (await provider.getMultiple(path, { ...options, forceFetch: fresh })) ?? {};
    const byName: Record<string, string> = {};
    for (const [key, value] of Object.entries(values)) byName[`${path}/${key}`] = String(value);
    return byName;
  }

  // Powertools does not cache an empty folder (no silences is the usual case): keep the whole set.
  let cached: { at: number; raw: RawConfig } | null = null;

  return {
    async loadRaw(request) {
      const fresh = request?.fresh === true;
      if (!fresh && cached !== null && Date.now() - cached.at < maxAgeSeconds * 1000) return cached.raw;
      const [targets, rules, silences, discovery] = await Promise.all([
        folder('targets', fresh),
        folder('rules', fresh),
        folder('silences', fresh),
        folder('discovery', fresh),
      ]);
      cached = { at: Date.now(), raw: { targets, rules, silences, discovery } };
      return cached.raw;
    },
    async getSecret(name) {
      try {
        const value = await provider.get(name, { decrypt: true, maxAge: maxAgeSeconds });
        if (typeof value !== 'string') throw new SecretNotFoundError(name);
        return value;
      } catch (error) {
        throw error instanceof SecretNotFoundError ? error : new SecretNotFoundError(name, { cause: error });
      }
    },
  };
}

export { createSsmConfigSource, SecretNotFoundError };
