/**
 * `targets add|list|remove|pack`: the servers the monitor checks, under `<prefix>/targets/`, a
 * parameter holding one target's document or a list of them. `add` fills list documents within
 * the tier chosen; every target is validated by the Lambda's own target schema before anything is
 * written. SSM has no conditional write: a list is rewritten only when its version is still the
 * one read, checked right before the write, and retried from a fresh read when it moved on.
 * `targets discover`: what each `<prefix>/discovery/<name>` document lists now, through the
 * Lambda's own discovery code and the real EC2, Auto Scaling and ELBv2 clients.
 */
import { type ParameterAdmin, ParameterExistsError, type ParameterValue } from '../adapters/ssmAdmin.ts';
import { type DocumentPreview, previewDiscovery } from '../app/discovery/preview.ts';
import { type DiscoveryDocument, readDiscoveryDocument } from '../core/discovery/document.ts';
import {
  type ConfigProblem,
  describePlace,
  isTargetList,
  mergedDocument,
  readTarget,
  readTargetParameter,
  renderTargetList,
  type SecretScope,
  TARGET_NAME,
  type TargetConfig,
  type TargetEntry,
  type TargetPlace,
  targetEntries,
  twinProblem,
} from '../core/monitorConfig.ts';
import { parseDuration } from '../core/rules/duration.ts';
import {
  minimalEntry,
  PARAMETER_TIERS,
  type ParameterTier,
  packTargets,
  placeTarget,
  roomOf,
  TIER_CHOICES,
  type TierChoice,
  tierFor,
} from '../core/targetDocuments.ts';
import { redactCredentials } from '../core/text/sanitize.ts';
import { MONITOR_ENVIRONMENT } from '../lambda/environmentContract.ts';
import {
  type AdminIo,
  type CliCommand,
  type CommandIo,
  EXIT,
  leaf,
  parseOptions,
  RefusedError,
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
                                  [--allow-loopback] [--replace] [--tier standard|advanced|auto]
                                  [--prefix <path>]
  httpd-status-alerts targets list [--prefix <path>]
  httpd-status-alerts targets remove <name> [--prefix <path>]
  httpd-status-alerts targets pack [--tier standard|advanced|auto] [--dry-run] [--prefix <path>]
  httpd-status-alerts targets discover [--prefix <path>] [--timeout <duration>] [--json]
`;

const help = `${usage}
A parameter under <prefix>/targets/ holds one target, { "url": ..., ... } named after the
parameter, or a list, { "defaults": { ... }, "targets": [ { "name": ..., "url": ... }, ... ] },
each entry the defaults with its own fields over them (labels merged key by key); names are
unique across all of them. The Lambda picks changes up
on its next configuration read (${CONFIG_MAX_AGE.name}, ${CONFIG_MAX_AGE.default} s by default).

  add      adds a target, checked by the Lambda's own schema, to the first list document with room
           whose defaults it does not change, written without the fields and labels equal to
           them (else a new list, <prefix>/targets/list-0001, ...); an existing target is changed in place
           only with --replace. --tier: standard (the default) fills lists to SSM's standard 4 KB;
           advanced fills them to 8 KB and writes them Advanced (paid, $0.05 a parameter a month);
           auto fills them to 8 KB, Standard while a list fits in 4 KB. A list already Advanced
           stays so (SSM never downgrades). Credentials never go in the URL: put "user:password"
           in a SecureString (aws ssm put-parameter --type SecureString) and name it with
           --auth-parameter: <prefix>/secrets/<name> or a parameter below it, or a shared secret
           listed in $${SHARED_SECRETS_ENV} (the stack's sharedSecretParameters, separated by commas).
           --ca-bundle-parameter: any parameter under <prefix>/, under <prefix>/secrets/ only those.
           --allow-loopback lets the Lambda reach a server on its own host (127.0.0.1, ::1: a
           sidecar); without it loopback is refused. Link-local addresses (instance metadata,
           container credentials) and the Lambda runtime API are refused whatever the target says.
  list     every target (a list entry merged with its list's defaults), the parameter holding it,
           and what the Lambda would make of it
  remove   takes the target out of its list (deleting the list when it was the last) or deletes
           its own parameter; its alerts resolve away with their retention
  pack     moves the targets that have a parameter of their own into new list documents (each
           list written, then those parameters deleted), the fields and labels all the targets of
           a list share written once, as its defaults; --dry-run says what it would write
  discover lists what each discovery document <prefix>/discovery/<name> lists now (name, URL,
           labels of each target), through the Lambda's own discovery code and the EC2, Auto
           Scaling and ELBv2 APIs (read-only describe calls, with this shell's credentials), and
           names instances skipped and names taken. A source that fails says which and why.
           Exit 1 when a document is invalid or its listing failed. --timeout bounds each
           listing, retries after throttling included (default ${DISCOVER_TIMEOUT_MS / 1000}s); --json prints one object.

Lists are rewritten only when their version is still the one read (checked right before the
write, retried from a fresh read otherwise); SSM has no conditional write, so an edit landing in
between is reported, never silently lost. --prefix defaults to $SSM_PREFIX, else
/httpd-status-alerts. AWS credentials and region are the SDK's usual ones (AWS_PROFILE, AWS_REGION, ...).
`;

/** Times `add` and `remove` read the folder again when a list they would write moved on meanwhile. */
const MAX_WRITE_ATTEMPTS = 5;

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

function tierChoice(value: string | undefined): TierChoice {
  if (value === undefined) return TIER_CHOICES.standard;
  if (Object.hasOwn(TIER_CHOICES, value)) return value as TierChoice;
  throw new UsageError(`--tier expects standard, advanced or auto, found "${value}"`);
}

/** `Standard, 1234 of 4096 characters`: a list's tier and fill, for the lines the commands print. */
function fill(tier: ParameterTier, chars: number): string {
  return `${tier}, ${chars} of ${PARAMETER_TIERS[tier].maxChars} characters`;
}

/** The folder read with versions, and the targets it holds (leniently: names only). */
async function readFolder(admin: ParameterAdmin, prefix: string) {
  const read = await admin.entries(`${prefix}/targets`);
  const texts = Object.fromEntries(Object.entries(read).map(([name, { value }]) => [name, value]));
  return { read, texts, entries: targetEntries(texts) };
}

/**
 * A list document rewritten when it still holds what was read: its version is checked right
 * before the write (false: it moved on, read again). SSM has no conditional write, so an edit
 * landing between the check and the write is detected by the version written, and reported.
 *
 * @throws RefusedError when another write landed in between (one of the two edits may be lost)
 */
async function rewrite(
  admin: ParameterAdmin,
  parameter: string,
  read: ParameterValue,
  text: string,
  tier: ParameterTier,
): Promise<boolean> {
  const now = await admin.get(parameter);
  if (now?.version !== read.version) return false;
  const written = await admin.put(parameter, text, { replace: true, tier });
  if (written !== read.version + 1)
    throw new RefusedError(
      `expected ${parameter} at version ${read.version + 1} after this write, found version ${written}: another edit landed between the check and the write, and one of the two may be lost (targets list shows what it holds)`,
    );
  return true;
}

/** The tier of `parameter` now (a value past 4 KB is Advanced; else SSM says). */
async function currentTier(admin: ParameterAdmin, parameter: string, text: string): Promise<ParameterTier> {
  if (text.length > PARAMETER_TIERS.Standard.maxChars) return 'Advanced';
  return (await admin.tierOf(parameter)) ?? 'Standard';
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
      tier: { type: 'string' },
      prefix: { type: 'string' },
    },
    true,
  );
  if (positionals.length !== 1) throw new UsageError(`expected one target name, found ${positionals.length}`);
  const name = checkName(positionals[0]);
  const prefix = resolvePrefix(values.prefix, io.env);
  const choice = tierChoice(values.tier);
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
  const problems: ConfigProblem[] = [];
  // The Lambda's own validation, credentials in the URL and the secrets' scope included.
  const target = readTarget(
    `${prefix}/targets/${name}`,
    name,
    JSON.stringify(document),
    problems,
    secretScope(prefix, io.env),
  );
  if (target === null) throw new UsageError(problems.map(asOptionProblem).join('; '));
  const admin = io.ssm();
  for (let attempt = 1; attempt <= MAX_WRITE_ATTEMPTS; attempt++) {
    const { read, texts, entries } = await readFolder(admin, prefix);
    const held = entries.find((e) => e.name === name);
    const written =
      held === undefined
        ? await addNew(admin, { prefix, name, document, choice, read, texts, entries })
        : await replaceHeld(admin, { held, document, choice, replace: values.replace === true, read, texts });
    if (written === null) continue;
    const verb = held === undefined ? 'added to' : 'replaced in';
    io.stdout(
      `target ${name} ${verb} ${written.parameter} (${fill(written.tier, written.chars)}): ${describeTarget(target)}\n`,
    );
    return EXIT.ok;
  }
  throw new RefusedError(
    `expected the target lists under ${prefix}/targets to stay still for a moment, found them changed by other writes ${MAX_WRITE_ATTEMPTS} times in a row: try again`,
  );
}

/** What a write wrote: the parameter, its tier and length (null: it moved on meanwhile, read again). */
type Written = { parameter: string; tier: ParameterTier; chars: number } | null;

/** A new target into the first list with room, else a new list. */
async function addNew(
  admin: ParameterAdmin,
  a: {
    prefix: string;
    name: string;
    document: object;
    choice: TierChoice;
    read: Record<string, ParameterValue>;
    texts: Record<string, string>;
    entries: TargetEntry[];
  },
): Promise<Written> {
  const entry = { name: a.name, ...a.document };
  const placed = placeTarget(a.entries, a.texts, entry, a.choice, `${a.prefix}/targets`);
  if (placed === null)
    throw new RefusedError(
      `expected the target to fit in a list of ${roomOf(a.choice, 0)} characters, found ${renderTargetList([entry]).length}${a.choice === TIER_CHOICES.standard ? ': use --tier advanced or auto' : ''}`,
    );
  const { parameter, text } = placed;
  if (!placed.existing) {
    const tier = tierFor(text.length, a.choice, null);
    try {
      await admin.put(parameter, text, { replace: false, tier });
    } catch (error) {
      // Created meanwhile by another writer: read again.
      if (error instanceof ParameterExistsError) return null;
      throw error;
    }
    return { parameter, tier, chars: text.length };
  }
  const before = a.texts[parameter] as string;
  const tier = tierFor(text.length, a.choice, await currentTier(admin, parameter, before));
  const read = a.read[parameter] as ParameterValue;
  return (await rewrite(admin, parameter, read, text, tier)) ? { parameter, tier, chars: text.length } : null;
}

/** An existing target changed in place (`--replace`): its own parameter, or its entry in its list. */
async function replaceHeld(
  admin: ParameterAdmin,
  r: {
    held: TargetEntry;
    document: object;
    choice: TierChoice;
    replace: boolean;
    read: Record<string, ParameterValue>;
    texts: Record<string, string>;
  },
): Promise<Written> {
  const { held } = r;
  if (!r.replace)
    throw new RefusedError(
      `expected no target ${held.name}, found one in ${describePlace(held)} (--replace changes it)`,
    );
  const before = r.texts[held.parameter] as string;
  let text = JSON.stringify(r.document);
  if (held.index !== null) {
    const list = JSON.parse(before) as { targets: unknown[]; defaults?: unknown };
    const documents = [...list.targets];
    const entry = minimalEntry({ name: held.name, ...r.document }, list.defaults);
    if (entry === null)
      throw new RefusedError(
        `expected the changed target to set every field and label the defaults of ${held.parameter} set (${JSON.stringify(list.defaults)}), found it without some: remove the target and add it again`,
      );
    documents[held.index] = entry;
    text = renderTargetList(documents, list.defaults);
  }
  const current = await currentTier(admin, held.parameter, before);
  const room = Math.max(roomOf(r.choice, before.length), PARAMETER_TIERS[current].maxChars);
  if (text.length > room)
    throw new RefusedError(
      `expected ${held.parameter} to hold the changed target within ${room} characters, found ${text.length}: use --tier advanced or auto, or remove the target and add it again`,
    );
  const tier = tierFor(text.length, r.choice, current);
  const read = r.read[held.parameter] as ParameterValue;
  return (await rewrite(admin, held.parameter, read, text, tier))
    ? { parameter: held.parameter, tier, chars: text.length }
    : null;
}

async function list(args: string[], io: TargetsIo): Promise<number> {
  const { values, positionals } = parseOptions(args, { prefix: { type: 'string' } }, true);
  if (positionals.length > 0) throw new UsageError(`expected no positional arguments, found "${positionals[0]}"`);
  const prefix = resolvePrefix(values.prefix, io.env);
  const parameters = await io.ssm().list(`${prefix}/targets`);
  const scope = secretScope(prefix, io.env);
  const lines: string[] = [];
  let invalid = 0;
  const byName = new Map<string, { target: TargetConfig; place: TargetPlace }>();
  for (const [parameter, text] of Object.entries(parameters)) {
    const problems: ConfigProblem[] = [];
    for (const read of readTargetParameter(parameter, text, problems, scope)) {
      const twin = byName.get(read.target.name);
      const problem = twin === undefined ? null : twinProblem(read, twin);
      if (problem !== null) problems.push(problem);
      else if (twin === undefined) {
        byName.set(read.target.name, read);
        lines.push(`${read.target.name}  ${parameter}  ${describeTarget(read.target)}`);
      }
    }
    // The problems of each bad entry on one line (a list's entry by its index), the good ones kept.
    const byEntry = new Map<string, ConfigProblem[]>();
    for (const p of problems) {
      const at = /^targets\[\d+\]/.exec(p.field ?? '')?.[0] ?? '';
      byEntry.set(at, [...(byEntry.get(at) ?? []), p]);
    }
    const names = new Map(targetEntries({ [parameter]: text }).map((e) => [`targets[${e.index}]`, e.name]));
    for (const [at, found] of byEntry) {
      invalid += 1;
      const why = found.map((p) => `${p.field === null ? '' : `field ${p.field}: `}${p.message}`).join('; ');
      const shown = at === '' ? leaf(parameter) : (names.get(at) ?? '-');
      const where = at === '' ? parameter : `${parameter} ${at}`;
      lines.push(`${shown}  ${where}  INVALID, the Lambda rejects it: ${redactCredentials(why)}`);
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
  const admin = io.ssm();
  for (let attempt = 1; attempt <= MAX_WRITE_ATTEMPTS; attempt++) {
    const { read, texts, entries } = await readFolder(admin, prefix);
    const held = entries.find((e) => e.name === name);
    if (held === undefined)
      throw new RefusedError(`expected a target ${name} under ${prefix}/targets, found none (targets list shows them)`);
    const { parameter, index } = held;
    const was = redactCredentials(index === null ? (texts[parameter] as string) : JSON.stringify(mergedDocument(held)));
    const list =
      index === null ? null : (JSON.parse(texts[parameter] as string) as { targets: unknown[]; defaults?: unknown });
    // Why the list's own length, not its named entries: an entry without a name is no target, but
    // deleting the parameter would lose it.
    if (list === null || list.targets.length === 1) {
      // Its own parameter, or the last target of its list: the parameter goes, if still as read.
      if ((await admin.get(parameter))?.version !== read[parameter]?.version) continue;
      if (!(await admin.remove(parameter))) continue;
      io.stdout(`target ${name} removed: deleted ${parameter} (was ${was})\n`);
      return EXIT.ok;
    }
    const documents = list.targets.filter((_, i) => i !== index);
    const text = renderTargetList(documents, list.defaults);
    const tier = await currentTier(admin, parameter, texts[parameter] as string);
    if (!(await rewrite(admin, parameter, read[parameter] as ParameterValue, text, tier))) continue;
    io.stdout(`target ${name} removed from ${parameter} (was ${was}); ${documents.length} left there\n`);
    return EXIT.ok;
  }
  throw new RefusedError(
    `expected the target lists under ${prefix}/targets to stay still for a moment, found them changed by other writes ${MAX_WRITE_ATTEMPTS} times in a row: try again`,
  );
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
  for (const [parameter, text] of Object.entries(targets))
    for (const { target } of readTargetParameter(parameter, text, [], scope)) configured.push(target);
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

/** A parameter's JSON, or null when it is not JSON. */
function parseOrNull(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return null;
  }
}

async function pack(args: string[], io: TargetsIo): Promise<number> {
  const { values, positionals } = parseOptions(
    args,
    { tier: { type: 'string' }, 'dry-run': { type: 'boolean' }, prefix: { type: 'string' } },
    true,
  );
  if (positionals.length > 0) throw new UsageError(`expected no positional arguments, found "${positionals[0]}"`);
  const prefix = resolvePrefix(values.prefix, io.env);
  const choice = tierChoice(values.tier);
  const admin = io.ssm();
  const { texts } = await readFolder(admin, prefix);
  const scope = secretScope(prefix, io.env);
  // Only valid targets move: an invalid one stays where `targets list` shows it.
  const singles: Array<{ name: string; document: Record<string, unknown> }> = [];
  let invalid = 0;
  for (const [parameter, text] of Object.entries(texts)) {
    if (isTargetList(parseOrNull(text))) continue;
    const problems: ConfigProblem[] = [];
    const [read] = readTargetParameter(parameter, text, problems, scope);
    if (read === undefined) invalid += 1;
    else singles.push({ name: read.target.name, document: { name: read.target.name, ...JSON.parse(text) } });
  }
  const packs = packTargets(singles, choice, `${prefix}/targets`, new Set(Object.keys(texts)));
  const lines: string[] = [];
  for (const { parameter, text, names, defaults } of packs) {
    const tier = tierFor(text.length, choice, null);
    if (values['dry-run'] !== true) {
      // The list first, then the old parameters: a configuration read in between sees each
      // target twice, equal in every field, which the Lambda reads as one target being moved.
      await admin.put(parameter, text, { replace: false, tier });
      await admin.removeAll(names.map((n) => `${prefix}/targets/${n}`));
    }
    const shared = defaults.length === 0 ? '' : `; defaults ${defaults.join(', ')}`;
    lines.push(
      `${parameter}  ${names.length} targets (${fill(tier, text.length)}): ${names[0]} .. ${names.at(-1)}${shared}`,
    );
  }
  const moved = packs.reduce((n, p) => n + p.names.length, 0);
  const verb = values['dry-run'] === true ? 'would move' : 'moved';
  lines.push(`${verb} ${moved} targets from their own parameters into ${packs.length} list documents`);
  io.stdout(`${lines.join('\n')}\n`);
  if (invalid > 0)
    io.stderr(`targets pack: ${invalid} invalid target(s) left in their parameters (targets list shows them)\n`);
  return invalid > 0 ? EXIT.failed : EXIT.ok;
}

const SUBCOMMANDS = { add, list, remove, pack, discover } as const;

const targetsCommand: CliCommand<TargetsIo> = {
  name: 'targets',
  summary: 'add, list, remove and pack the monitored servers in SSM; show what discovery lists',
  usage,
  help,
  run(argv, io) {
    return runSubcommand(targetsCommand, SUBCOMMANDS, argv, io);
  },
};

export { targetsCommand };
