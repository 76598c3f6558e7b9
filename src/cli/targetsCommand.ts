/**
 * `targets add|list|remove`: the servers the monitor checks, one parameter per target under
 * `<prefix>/targets/<name>`, validated by the Lambda's own target schema before anything is written.
 * `targets discover`: what each `<prefix>/discovery/<name>` document lists now, through the
 * Lambda's own discovery code and the real EC2, Auto Scaling and ELBv2 clients.
 */
import { type DocumentPreview, previewDiscovery } from '../app/discovery/preview.ts';
import { type DiscoveryDocument, readDiscoveryDocument } from '../core/discovery/document.ts';
import {
  type ConfigProblem,
  readTarget,
  type SecretScope,
  TARGET_NAME,
  type TargetConfig,
} from '../core/monitorConfig.ts';
import { parseDuration } from '../core/rules/duration.ts';
import { redactCredentials } from '../core/text/sanitize.ts';
import { MONITOR_ENVIRONMENT } from '../lambda/environmentContract.ts';
import {
  type AdminIo,
  type CliCommand,
  type CommandIo,
  EXIT,
  leaf,
  parseOptions,
  removeNamed,
  resolvePrefix,
  runSubcommand,
  UsageError,
} from './commandSupport.ts';

type TargetsIo = CommandIo & AdminIo;

/** Which option set each field of the target, for problems found by the schema. */
const OPTION_OF_FIELD: Record<string, string> = {
  url: '--url',
  timeoutMs: '--timeout',
  maxBytes: '--max-bytes',
  labels: '--label',
  authParameter: '--auth-parameter',
  caBundleParameter: '--ca-bundle-parameter',
  allowLoopback: '--allow-loopback',
};

/** How long one listing may take by default, the SDK's retries and the waits after throttling included. */
const DISCOVER_TIMEOUT_MS = 30_000;

/** The variable naming the shared secrets: the function's own, so one value serves both. */
const SHARED_SECRETS_ENV = MONITOR_ENVIRONMENT.sharedSecretParameters.name;

/** How stale the function's configuration may be: the contract's variable, so the help quotes its real default. */
const CONFIG_MAX_AGE = MONITOR_ENVIRONMENT.configMaxAgeSeconds;

const usage = `Usage:
  httpd-status-alerts targets add <name> --url <url> [--auth-parameter <name>] [--timeout <duration>]
                                  [--max-bytes <n>] [--ca-bundle-parameter <name>] [--label k=v]...
                                  [--allow-loopback] [--replace] [--prefix <path>]
  httpd-status-alerts targets list [--prefix <path>]
  httpd-status-alerts targets remove <name> [--prefix <path>]
  httpd-status-alerts targets discover [--prefix <path>] [--timeout <duration>] [--json]
`;

const help = `${usage}
Each target is one parameter <prefix>/targets/<name> holding { "url": ..., ... }; the Lambda
picks it up on its next configuration read (${CONFIG_MAX_AGE.name}, ${CONFIG_MAX_AGE.default} s by default).

  add      writes a target, checked by the Lambda's own schema; an existing one is changed only
           with --replace. Credentials never go in the URL: put "user:password" in a SecureString
           (aws ssm put-parameter --type SecureString) and name it with --auth-parameter:
           <prefix>/secrets/<name> or a parameter below it, or a shared secret listed in
           $${SHARED_SECRETS_ENV} (the stack's sharedSecretParameters, separated by commas).
           --ca-bundle-parameter: any parameter under <prefix>/, under <prefix>/secrets/ only those.
           --allow-loopback lets the Lambda reach a server on its own host (127.0.0.1, ::1: a
           sidecar); without it loopback is refused. Link-local addresses (instance metadata,
           container credentials) and the Lambda runtime API are refused whatever the target says.
  list     every target, with what the Lambda would make of it
  remove   deletes the target's parameter (its alerts resolve away with their retention)
  discover lists what each discovery document <prefix>/discovery/<name> lists now (name, URL,
           labels of each target), through the Lambda's own discovery code and the EC2, Auto
           Scaling and ELBv2 APIs (read-only describe calls, with this shell's credentials), and
           names instances skipped and names taken. A source that fails says which and why.
           Exit 1 when a document is invalid or its listing failed. --timeout bounds each
           listing, retries after throttling included (default ${DISCOVER_TIMEOUT_MS / 1000}s); --json prints one object.

--prefix defaults to $SSM_PREFIX, else /httpd-status-alerts. AWS credentials and region are the
SDK's usual ones (AWS_PROFILE, AWS_REGION, ...).
`;

/** The secrets the targets under `prefix` may name: their own, and those in `$SHARED_SECRET_PARAMETERS`. */
function secretScope(prefix: string, env: TargetsIo['env']): SecretScope {
  const shared = (env[SHARED_SECRETS_ENV] ?? '')
    .split(',')
    .map((name) => name.trim())
    .filter((name) => name !== '');
  return { prefix, sharedSecretParameters: shared };
}

/** A problem of the one target validation in the CLI's words: options for fields, the variable for the deploy option. */
function asOptionProblem(p: ConfigProblem): string {
  const option = OPTION_OF_FIELD[p.field?.split('.')[0] ?? ''] ?? 'target';
  let message = p.message.replaceAll('sharedSecretParameters', `$${SHARED_SECRETS_ENV}`);
  for (const [field, name] of Object.entries(OPTION_OF_FIELD))
    message = message.replaceAll(new RegExp(`\\b${field}\\b`, 'g'), name);
  return `${option}: ${message}`;
}

function checkName(name: string | undefined): string {
  if (name === undefined) throw new UsageError('expected a target name');
  if (!TARGET_NAME.test(name))
    throw new UsageError(`expected a target name of letters, digits, _ . - (at most 63), found "${name}"`);
  return name;
}

function labelsOf(pairs: string[] | undefined): Record<string, string> | undefined {
  if (pairs === undefined) return undefined;
  const labels: Record<string, string> = {};
  for (const pair of pairs) {
    const eq = pair.indexOf('=');
    if (eq <= 0) throw new UsageError(`--label expects key=value, found "${pair}"`);
    labels[pair.slice(0, eq)] = pair.slice(eq + 1);
  }
  return labels;
}

function describeTarget(t: TargetConfig): string {
  const parts = [redactCredentials(t.url)];
  if (t.timeoutMs !== undefined) parts.push(`timeout ${t.timeoutMs} ms`);
  if (t.maxBytes !== undefined) parts.push(`max ${t.maxBytes} bytes`);
  if (t.authParameter !== undefined) parts.push(`auth ${t.authParameter}`);
  if (t.caBundleParameter !== undefined) parts.push(`CA ${t.caBundleParameter}`);
  if (t.allowLoopback === true) parts.push('loopback allowed');
  const labels = Object.entries(t.labels).map(([k, v]) => `${k}=${v}`);
  if (labels.length > 0) parts.push(`labels ${labels.join(',')}`);
  return parts.join(', ');
}

async function add(args: string[], io: TargetsIo): Promise<number> {
  const { values, positionals } = parseOptions(
    args,
    {
      url: { type: 'string' },
      'auth-parameter': { type: 'string' },
      timeout: { type: 'string' },
      'max-bytes': { type: 'string' },
      'ca-bundle-parameter': { type: 'string' },
      label: { type: 'string', multiple: true },
      'allow-loopback': { type: 'boolean' },
      replace: { type: 'boolean' },
      prefix: { type: 'string' },
    },
    true,
  );
  if (positionals.length !== 1) throw new UsageError(`expected one target name, found ${positionals.length}`);
  const name = checkName(positionals[0]);
  const prefix = resolvePrefix(values.prefix, io.env);
  if (values.url === undefined) throw new UsageError('--url is required');
  const timeoutMs = values.timeout === undefined ? undefined : parseDuration(values.timeout);
  if (timeoutMs === null)
    throw new UsageError(`--timeout expects a duration such as 5s or 1500ms, found "${values.timeout}"`);
  const maxBytes = values['max-bytes'] === undefined ? undefined : Number(values['max-bytes']);
  if (maxBytes !== undefined && !Number.isInteger(maxBytes))
    throw new UsageError(`--max-bytes expects a whole number of bytes, found "${values['max-bytes']}"`);
  const document = {
    url: values.url,
    ...(timeoutMs === undefined ? {} : { timeoutMs }),
    ...(maxBytes === undefined ? {} : { maxBytes }),
    ...(values.label === undefined ? {} : { labels: labelsOf(values.label) }),
    ...(values['auth-parameter'] === undefined ? {} : { authParameter: values['auth-parameter'] }),
    ...(values['ca-bundle-parameter'] === undefined ? {} : { caBundleParameter: values['ca-bundle-parameter'] }),
    ...(values['allow-loopback'] === true ? { allowLoopback: true } : {}),
  };
  const parameter = `${prefix}/targets/${name}`;
  const problems: ConfigProblem[] = [];
  // The Lambda's own validation, credentials in the URL and the secrets' scope included.
  const target = readTarget(parameter, name, JSON.stringify(document), problems, secretScope(prefix, io.env));
  if (target === null) throw new UsageError(problems.map(asOptionProblem).join('; '));
  const replace = values.replace === true;
  const before = replace ? (await io.ssm().list(`${prefix}/targets`))[parameter] : undefined;
  await io.ssm().put(parameter, JSON.stringify(document), { replace });
  io.stdout(
    `target ${name} ${before === undefined ? 'added' : 'replaced'} (${parameter}): ${describeTarget(target)}\n`,
  );
  return EXIT.ok;
}

async function list(args: string[], io: TargetsIo): Promise<number> {
  const { values, positionals } = parseOptions(args, { prefix: { type: 'string' } }, true);
  if (positionals.length > 0) throw new UsageError(`expected no positional arguments, found "${positionals[0]}"`);
  const prefix = resolvePrefix(values.prefix, io.env);
  const parameters = await io.ssm().list(`${prefix}/targets`);
  const scope = secretScope(prefix, io.env);
  const lines: string[] = [];
  let invalid = 0;
  for (const [parameter, text] of Object.entries(parameters)) {
    const problems: ConfigProblem[] = [];
    const target = readTarget(parameter, leaf(parameter), text, problems, scope);
    if (target !== null) lines.push(`${target.name}  ${describeTarget(target)}`);
    else {
      invalid += 1;
      const why = problems.map((p) => `${p.field === null ? '' : `field ${p.field}: `}${p.message}`).join('; ');
      lines.push(`${leaf(parameter)}  INVALID, the Lambda rejects it: ${redactCredentials(why)}`);
    }
  }
  io.stdout(lines.length === 0 ? `no targets under ${prefix}/targets\n` : `${lines.join('\n')}\n`);
  if (invalid > 0) io.stderr(`targets list: ${invalid} invalid target(s) under ${prefix}/targets\n`);
  return invalid > 0 ? EXIT.failed : EXIT.ok;
}

async function remove(args: string[], io: TargetsIo): Promise<number> {
  const { values, positionals } = parseOptions(args, { prefix: { type: 'string' } }, true);
  if (positionals.length !== 1) throw new UsageError(`expected one target name, found ${positionals.length}`);
  const name = checkName(positionals[0]);
  const prefix = resolvePrefix(values.prefix, io.env);
  const { parameter, value } = await removeNamed(io, prefix, 'targets', name, 'a target', 'targets list');
  io.stdout(`target ${name} removed: deleted ${parameter} (was ${redactCredentials(value)})\n`);
  return EXIT.ok;
}

/** A target as `targets discover` prints it: its name, URL (credentials hidden) and labels. */
function discoveredLine(t: TargetConfig): string {
  const labels = Object.entries(t.labels).map(([k, v]) => `${k}=${v}`);
  return `  ${t.name}  ${redactCredentials(t.url)}${labels.length > 0 ? `  labels ${labels.join(',')}` : ''}`;
}

/** One document's listing in words: its targets, skips and collisions, or why it failed. */
function previewText(p: DocumentPreview): string[] {
  const head = `${p.document.name} (${p.document.parameter}, source ${p.document.query.source})`;
  if (!p.ok) return [`${head}: FAILING, ${p.error.source} ${p.error.why}: ${p.error.detail}`];
  const lines = [`${head}: ${p.targets.length} target(s), ${p.calls} call(s)`, ...p.targets.map(discoveredLine)];
  for (const s of p.skipped) lines.push(`  skipped ${s.instance}: ${s.reason}`);
  for (const c of p.collisions) lines.push(`  left out: ${c.message}`);
  return lines;
}

/** One document's listing as `--json` prints it. */
function previewJson(p: DocumentPreview): Record<string, unknown> {
  const base = { parameter: p.document.parameter, name: p.document.name, source: p.document.query.source };
  if (!p.ok)
    return {
      ...base,
      status: 'failing',
      failure: { source: p.error.source, why: p.error.why, detail: p.error.detail },
    };
  return {
    ...base,
    status: 'listed',
    targets: p.targets.map((t) => ({ name: t.name, url: redactCredentials(t.url), labels: t.labels })),
    skipped: p.skipped,
    collisions: p.collisions.map((c) => c.message),
    calls: p.calls,
  };
}

async function discover(args: string[], io: TargetsIo): Promise<number> {
  const { values, positionals } = parseOptions(
    args,
    { prefix: { type: 'string' }, timeout: { type: 'string' }, json: { type: 'boolean' } },
    true,
  );
  if (positionals.length > 0) throw new UsageError(`expected no positional arguments, found "${positionals[0]}"`);
  const prefix = resolvePrefix(values.prefix, io.env);
  const budgetMs = values.timeout === undefined ? DISCOVER_TIMEOUT_MS : parseDuration(values.timeout);
  if (budgetMs === null || budgetMs <= 0)
    throw new UsageError(`--timeout expects a duration such as 30s or 1500ms, found "${values.timeout}"`);
  const scope = secretScope(prefix, io.env);
  const [documents, targets] = await Promise.all([
    io.ssm().list(`${prefix}/discovery`),
    io.ssm().list(`${prefix}/targets`),
  ]);
  const valid: DiscoveryDocument[] = [];
  const invalid: Array<{ parameter: string; problems: string[] }> = [];
  for (const [parameter, text] of Object.entries(documents)) {
    const problems: ConfigProblem[] = [];
    const document = readDiscoveryDocument(parameter, text, problems, scope);
    if (document !== null) valid.push(document);
    else
      invalid.push({
        parameter,
        problems: problems.map((p) => redactCredentials(`${p.field === null ? '' : `field ${p.field}: `}${p.message}`)),
      });
  }
  // The configured targets hold their names: a discovered target that collides is left out, as in the Lambda.
  const configured: TargetConfig[] = [];
  for (const [parameter, text] of Object.entries(targets)) {
    const target = readTarget(parameter, leaf(parameter), text, [], scope);
    if (target !== null) configured.push(target);
  }
  // Only this subcommand needs the three SDK clients: the others start without loading them.
  const { discoverySourcesFor } = await import('../lambda/discoverySources.ts');
  const sources = discoverySourcesFor(['ec2', 'autoscaling', 'elbv2']);
  const previews = await previewDiscovery(
    { sources, warm: new Map(), listingBudgetMs: () => budgetMs },
    valid,
    configured,
  );
  const failing = previews.filter((p) => !p.ok).length;
  if (values.json === true)
    io.stdout(
      `${JSON.stringify({
        prefix,
        documents: [
          ...previews.map(previewJson),
          ...invalid.map((d) => ({
            parameter: d.parameter,
            name: leaf(d.parameter),
            status: 'invalid',
            problems: d.problems,
          })),
        ].sort((a, b) => String(a.parameter).localeCompare(String(b.parameter))),
      })}\n`,
    );
  else {
    const blocks = [
      ...previews.map((p) => ({ parameter: p.document.parameter, lines: previewText(p) })),
      ...invalid.map((d) => ({
        parameter: d.parameter,
        lines: [`${leaf(d.parameter)} (${d.parameter}): INVALID, the Lambda rejects it: ${d.problems.join('; ')}`],
      })),
    ].sort((a, b) => a.parameter.localeCompare(b.parameter));
    io.stdout(
      blocks.length === 0
        ? `no discovery documents under ${prefix}/discovery\n`
        : `${blocks.flatMap((b) => b.lines).join('\n')}\n`,
    );
  }
  if (invalid.length > 0 || failing > 0)
    io.stderr(
      `targets discover: ${[invalid.length > 0 ? `${invalid.length} invalid document(s)` : '', failing > 0 ? `${failing} listing(s) failed` : ''].filter((s) => s !== '').join(', ')} under ${prefix}/discovery\n`,
    );
  return invalid.length > 0 || failing > 0 ? EXIT.failed : EXIT.ok;
}

const SUBCOMMANDS = { add, list, remove, discover } as const;

const targetsCommand: CliCommand<TargetsIo> = {
  name: 'targets',
  summary: 'add, list and remove the monitored servers in SSM; show what discovery lists',
  usage,
  help,
  run(argv, io) {
    return runSubcommand(targetsCommand, SUBCOMMANDS, argv, io);
  },
};

export { targetsCommand };
