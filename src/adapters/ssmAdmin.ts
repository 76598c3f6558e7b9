/**
 * Writes and lists the monitor's configuration parameters for the command line (`silence`,
 * `targets`): one folder read whole (paged), one parameter created, replaced or deleted. The
 * Lambda reads the same parameters through `ssmConfigSource.ts`.
 */
import {
  DeleteParameterCommand,
  ParameterAlreadyExists,
  ParameterNotFound,
  PutParameterCommand,
  paginateGetParametersByPath,
  type SSMClient,
} from '@aws-sdk/client-ssm';

/** Standard parameters hold 4 KB; larger values need the (paid) advanced tier. */
const STANDARD_TIER_MAX_CHARS = 4096;

interface ParameterAdmin {
  /** Every parameter under `path` (recursive), name -> value, sorted by name. */
  list(path: string): Promise<Record<string, string>>;
  /** Creates `name`; with `replace` false an existing parameter is left alone and this throws. */
  put(name: string, value: string, options: { replace: boolean }): Promise<void>;
  /** Deletes `name`; false when there was none. */
  remove(name: string): Promise<boolean>;
}

/** `put` without `replace` found the parameter already there. */
class ParameterExistsError extends Error {
  constructor(name: string, options?: ErrorOptions) {
    super(`expected no parameter ${name}, found one already`, options);
    this.name = 'ParameterExistsError';
  }
}

/**
 * @example
 * const admin = createSsmAdmin(new SSMClient({}));
 * await admin.put('/httpd-status-alerts/targets/web-1', '{"url":"https://web-1/server-status"}', { replace: false });
 */
function createSsmAdmin(client: SSMClient): ParameterAdmin {
  return {
    async list(path) {
      const out: Record<string, string> = {};
      const pages = paginateGetParametersByPath({ client }, { Path: path, Recursive: true, WithDecryption: false });
      for await (const page of pages) {
        for (const p of page.Parameters ?? []) if (p.Name !== undefined) out[p.Name] = p.Value ?? '';
      }
      return Object.fromEntries(Object.entries(out).sort(([a], [b]) => a.localeCompare(b)));
    },
    async put(name, value, { replace }) {
      const tier = value.length <= STANDARD_TIER_MAX_CHARS ? 'Standard' : 'Advanced';
      try {
        await client.send(
          new PutParameterCommand({ Name: name, Value: value, Type: 'String', Tier: tier, Overwrite: replace }),
        );
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
  };
}

export type { ParameterAdmin };
export { createSsmAdmin, ParameterExistsError };
