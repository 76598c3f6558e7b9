/**
 * What the configuration commands (`silence`, `targets`, `rules`) share: their module shape,
 * argument parsing that fails as a usage error, the SSM prefix, and one exit-code policy
 * (0 done, 1 refused or failed, 2 usage), each failure one line on standard error.
 */
import { SSMClient } from '@aws-sdk/client-ssm';
import { createSsmAdmin, type ParameterAdmin } from '../adapters/ssmAdmin.ts';
import { DEFAULT_SSM_PREFIX } from '../core/constants.ts';
import { leaf, SSM_PREFIX } from '../core/monitorConfig.ts';
import { EXIT, oneLine as oneLineWith, parseOptions, UsageError } from './command.ts';

const oneLine = (error: unknown) => oneLineWith(error, '; ');

/** The part of the CLI's io the configuration commands use. */
interface CommandIo {
  stdout(text: string): void;
  stderr(text: string): void;
  readText(path: string): Promise<string>;
  now(): Date;
}

/** What the SSM commands add: the environment (`SSM_PREFIX`) and the parameter store. */
interface AdminIo {
  env: Readonly<Record<string, string | undefined>>;
  /** Made on first use, so `--help` and usage errors need no AWS region or credentials. */
  ssm(): ParameterAdmin;
}

interface CliCommand<Io> {
  name: string;
  summary: string;
  usage: string;
  help: string;
  run(argv: string[], io: Io): Promise<number>;
}

/** The input was read but refused (invalid, missing, already there): exit 1, nothing written. */
class RefusedError extends Error {
  constructor(message: string, options?: ErrorOptions) {
    super(message, options);
    this.name = 'RefusedError';
  }
}

/** The real environment and SSM client (standard AWS SDK credentials, region and `AWS_ENDPOINT_URL_SSM`). */
function createAdminIo(env: Readonly<Record<string, string | undefined>>): AdminIo {
  let admin: ParameterAdmin | null = null;
  return {
    env,
    ssm: () => {
      admin ??= createSsmAdmin(new SSMClient({}));
      return admin;
    },
  };
}

/** `--prefix`, else `SSM_PREFIX`, else the default; trailing slashes dropped. */
function resolvePrefix(option: string | undefined, env: AdminIo['env']): string {
  const raw = option ?? (env.SSM_PREFIX || DEFAULT_SSM_PREFIX);
  const prefix = raw.replace(/\/+$/, '');
  if (!SSM_PREFIX.test(prefix))
    throw new UsageError(`--prefix expects an SSM path like /httpd-status-alerts, found "${raw}"`);
  return prefix;
}

/**
 * Deletes `<prefix>/<folder>/<name>` and returns the value it held; refused (nothing deleted) when
 * there is none. What `silence expire` and `targets remove` share.
 *
 * @example
 * const { parameter, value } = await removeNamed(io, '/hsa', 'targets', 'web-1', 'a target', 'targets list');
 */
async function removeNamed(
  io: AdminIo,
  prefix: string,
  folder: string,
  name: string,
  what: string,
  listCommand: string,
): Promise<{ parameter: string; value: string }> {
  const parameter = `${prefix}/${folder}/${name}`;
  const value = (await io.ssm().list(`${prefix}/${folder}`))[parameter];
  if (value === undefined || !(await io.ssm().remove(parameter)))
    throw new RefusedError(
      `expected ${what} ${name} under ${prefix}/${folder}, found none (${listCommand} shows them)`,
    );
  return { parameter, value };
}

/**
 * Runs a command's body under the common policy: `--help` prints `help`; a usage error exits 2 and
 * anything else that fails exits 1, each with one line on standard error.
 */
async function runWithPolicy(
  command: { name: string; usage: string; help: string },
  argv: string[],
  io: CommandIo,
  body: () => Promise<number>,
): Promise<number> {
  if (argv.includes('--help') || argv.includes('-h')) {
    io.stdout(command.help);
    return EXIT.ok;
  }
  try {
    return await body();
  } catch (error) {
    if (error instanceof UsageError) {
      io.stderr(`${command.name}: ${oneLine(error)} (usage: ${command.name} --help)\n`);
      return EXIT.usage;
    }
    io.stderr(`${command.name}: ${oneLine(error)}\n`);
    return EXIT.failed;
  }
}

/**
 * A command made of subcommands (`silence add`): the first argument picks one; anything else is a
 * usage error naming them all. Help, usage and failures go through `runWithPolicy`.
 */
function runSubcommand<Io extends CommandIo>(
  command: { name: string; usage: string; help: string },
  subcommands: Readonly<Record<string, (argv: string[], io: Io) => Promise<number>>>,
  argv: string[],
  io: Io,
): Promise<number> {
  const [sub, ...rest] = argv;
  const chosen = sub === undefined || !Object.hasOwn(subcommands, sub) ? undefined : subcommands[sub];
  return runWithPolicy(command, chosen === undefined ? argv : rest, io, () => {
    if (chosen === undefined) {
      const names = Object.keys(subcommands);
      const expected = `${names.slice(0, -1).join(', ')} or ${names.at(-1)}`;
      throw new UsageError(`expected ${expected}, found ${sub === undefined ? 'nothing' : `"${sub}"`}`);
    }
    return chosen(rest, io);
  });
}

export type { AdminIo, CliCommand, CommandIo };
export {
  createAdminIo,
  EXIT,
  leaf,
  oneLine,
  parseOptions,
  RefusedError,
  removeNamed,
  resolvePrefix,
  runSubcommand,
  runWithPolicy,
  UsageError,
};
