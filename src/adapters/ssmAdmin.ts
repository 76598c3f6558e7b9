/**
 * Writes and lists the monitor's configuration parameters for the command line (`silence`,
 * `targets`): one folder read whole (paged, with each parameter's version), one parameter read,
 * created, replaced or deleted, a parameter's tier. The Lambda reads the same parameters through
 * `ssmConfigSource.ts`.
 */
import {
  DeleteParameterCommand,
  DeleteParametersCommand,
  DescribeParametersCommand,
  GetParameterCommand,
  ParameterAlreadyExists,
  ParameterNotFound,
  PutParameterCommand,
  paginateGetParametersByPath,
  type SSMClient,
} from '@aws-sdk/client-ssm';
import { PARAMETER_TIERS, type ParameterTier } from '../core/targetDocuments.ts';

/** A parameter's value and the version SSM gave the write that set it. */
interface ParameterValue {
  value: string;
  version: number;
}

interface ParameterAdmin {
  /** Every parameter under `path` (recursive), name -> value, sorted by name. */
  list(path: string): Promise<Record<string, string>>;
  /** Every parameter under `path` (recursive) with its version, sorted by name. */
  entries(path: string): Promise<Record<string, ParameterValue>>;
  /** One parameter (null: none). */
  get(name: string): Promise<ParameterValue | null>;
  /** A parameter's tier (null: none). The only call that says it: reads do not. */
  tierOf(name: string): Promise<ParameterTier | null>;
  /**
   * Creates `name` (with `replace`, or replaces it); the version written. With `replace` false an
   * existing parameter is left alone and this throws. `tier`: the one asked (SSM refuses a value
   * over its tier's size, and a downgrade from Advanced); none: Standard while the value fits.
   */
  put(name: string, value: string, options: { replace: boolean; tier?: ParameterTier }): Promise<number>;
  /** Deletes `name`; false when there was none. */
  remove(name: string): Promise<boolean>;
  /** Deletes `names` (10 a call, as SSM takes them); the names deleted. */
  removeAll(names: readonly string[]): Promise<string[]>;
}

/** `put` without `replace` found the parameter already there. */
class ParameterExistsError extends Error {
  constructor(name: string, options?: ErrorOptions) {
    super(`expected no parameter ${name}, found one already`, options);
    this.name = 'ParameterExistsError';
  }
}

/** DeleteParameters takes at most 10 names a call. */
const DELETE_BATCH = 10;

/**
 * @example
 * const admin = createSsmAdmin(new SSMClient({}));
 * await admin.put('/httpd-status-alerts/targets/web-1', '{"url":"https://web-1/server-status"}', { replace: false });
 */
function createSsmAdmin(client: SSMClient): ParameterAdmin {
  async function entries(path: string): Promise<Record<string, ParameterValue>> {
    const out: Record<string, ParameterValue> = {};
    const pages = paginateGetParametersByPath({ client }, { Path: path, Recursive: true, WithDecryption: false });
    for await (const page of pages) {
      for (const p of page.Parameters ?? [])
        if (p.Name !== undefined) out[p.Name] = { value: p.Value ?? '', version: p.Version ?? 0 };
    }
    return Object.fromEntries(Object.entries(out).sort(([a], [b]) => a.localeCompare(b)));
  }
  return {
    entries,
    async list(path) {
      return Object.fromEntries(Object.entries(await entries(path)).map(([name, { value }]) => [name, value]));
    },
    async get(name) {
      try {
        const { Parameter: p } = await client.send(new GetParameterCommand({ Name: name, WithDecryption: false }));
        return { value: p?.Value ?? '', version: p?.Version ?? 0 };
      } catch (error) {
        if (error instanceof ParameterNotFound) return null;
        throw error;
      }
    },
    async tierOf(name) {
      const { Parameters } = await client.send(
        new DescribeParametersCommand({ ParameterFilters: [{ Key: 'Name', Option: 'Equals', Values: [name] }] }),
      );
      const tier = Parameters?.find((p) => p.Name === name)?.Tier;
      return tier === undefined ? null : tier === 'Advanced' ? 'Advanced' : 'Standard';
    },
    async put(name, value, { replace, tier }) {
      const Tier = tier ?? (value.length <= PARAMETER_TIERS.Standard.maxChars ? 'Standard' : 'Advanced');
      try {
        const { Version } = await client.send(
          new PutParameterCommand({ Name: name, Value: value, Type: 'String', Tier, Overwrite: replace }),
        );
        return Version ?? 0;
      } catch (error) {
        if (error instanceof ParameterAlreadyExists) throw new ParameterExistsError(name, { cause: error });
        throw error;
      }
    },
    async remove(name) {
      try {
        await client.send(new DeleteParameterCommand({ Name: name }));
        return true;
      } catch (error) {
        if (error instanceof ParameterNotFound) return false;
        throw error;
      }
    },
    async removeAll(names) {
      const deleted: string[] = [];
      for (let i = 0; i < names.length; i += DELETE_BATCH) {
        const { DeletedParameters } = await client.send(
          new DeleteParametersCommand({ Names: names.slice(i, i + DELETE_BATCH) }),
        );
        deleted.push(...(DeletedParameters ?? []));
      }
      return deleted;
    },
  };
}

export type { ParameterAdmin, ParameterValue };
export { createSsmAdmin, ParameterExistsError };
