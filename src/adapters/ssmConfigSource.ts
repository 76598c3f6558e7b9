/**
 * Configuration from SSM Parameter Store: the four folders under the prefix (targets, rules, silences, discovery) (GetParametersByPath,
 * recursive, paged, cached for `maxAgeSeconds`) and secrets (Powertools' SSMProvider, cached).
 *
 * Folders are paged here, each page retried on its own with full-jitter exponential backoff
 * (AWS's "Exponential Backoff And Jitter": sleep a random time between 0 and min(cap, base x 2^n))
 * until the read's budget runs out: at 10,000 targets a read is about a thousand calls against
 * SSM's shared 40 a second, and a throttle on page 600 must not restart the read from page 1.
 * A read that still fails is a `ConfigUnreadableError`, never an invalid configuration.
 */
import type { SSMProvider } from '@aws-lambda-powertools/parameters/ssm';
import { GetParametersByPathCommand, type SSMClient } from '@aws-sdk/client-ssm';
import { ConfigUnreadableError } from '../app/config/unreadable.ts';
import type { ConfigSource } from '../app/ports.ts';
import type { RawConfig } from '../core/monitorConfig.ts';

class SecretNotFoundError extends Error {
  constructor(name: string, options?: ErrorOptions) {
    super(`expected the SSM parameter ${name} to exist and be readable, found none`, options);
    this.name = 'SecretNotFoundError';
  }
}

/** How long one configuration read may retry, and its backoff's base and cap. */
const CONFIG_READ = { budgetMs: 15_000, baseMs: 100, capMs: 2_000 } as const;

interface ReadOptions {
  /** The client of the folders' reads (default: the provider's); one attempt a call suits it best. */
  client?: Pick<SSMClient, 'send'>;
  /** Give up (ConfigUnreadableError) once a retry would start past this long after the read began. */
  budgetMs?: number;
  baseMs?: number;
  capMs?: number;
  sleep?(ms: number): Promise<void>;
  /** In [0, 1). */
  random?(): number;
  clock?(): number;
}

/**
 * @example
 * const source = createSsmConfigSource(new SSMProvider(), '/httpd-status-alerts', 60, {
 *   client: new SSMClient({ maxAttempts: 1 }),
 * });
 * const raw = await source.loadRaw();
 */
function createSsmConfigSource(
  provider: SSMProvider,
  prefix: string,
  maxAgeSeconds: number,
  read: ReadOptions = {},
): ConfigSource {
  const budgetMs = read.budgetMs ?? CONFIG_READ.budgetMs;
  const baseMs = read.baseMs ?? CONFIG_READ.baseMs;
  const capMs = read.capMs ?? CONFIG_READ.capMs;
  const sleep = read.sleep ?? ((ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms)));
  const random = read.random ?? Math.random;
  const clock = read.clock ?? Date.now;
  const client = read.client ?? provider.client;

  /** One folder, page by page; each page retried until `deadline`. */
  async function folder(name: string, deadline: number, tally: { retries: number }): Promise<Record<string, string>> {
    const path = `${prefix}/${name}`;
    const byName: Record<string, string> = {};
    let token: string | undefined;
    do {
      for (let attempt = 0; ; attempt++) {
        try {
          const page = await client.send(
            new GetParametersByPathCommand({ Path: path, Recursive: true, WithDecryption: true, NextToken: token }),
          );
          for (const p of page.Parameters ?? []) if (p.Name !== undefined) byName[p.Name] = String(p.Value ?? '');
          token = page.NextToken;
          break;
        } catch (error) {
          const wait = Math.floor(random() * Math.min(capMs, baseMs * 2 ** attempt));
          if (clock() + wait > deadline) {
            const e = error as Error;
            throw new ConfigUnreadableError(
              `expected GetParametersByPath ${path} to answer within ${budgetMs} ms, found ${e.name}: ${e.message} after ${tally.retries} retries`,
              { cause: error },
            );
          }
          tally.retries++;
          await sleep(wait);
        }
      }
    } while (token !== undefined);
    return byName;
  }

  // The whole set, cached (an empty folder, no silences being the usual case, is cached too).
  let cached: { at: number; raw: RawConfig } | null = null;

  return {
    async loadRaw(request) {
      const fresh = request?.fresh === true;
      if (!fresh && cached !== null && Date.now() - cached.at < maxAgeSeconds * 1000) return cached.raw;
      const deadline = clock() + budgetMs;
      const tally = { retries: 0 };
      const [targets, rules, silences, discovery] = await Promise.all([
        folder('targets', deadline, tally),
        folder('rules', deadline, tally),
        folder('silences', deadline, tally),
        folder('discovery', deadline, tally),
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

export { CONFIG_READ, createSsmConfigSource, SecretNotFoundError };
