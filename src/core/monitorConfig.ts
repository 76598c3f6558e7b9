/**
 * The monitor's configuration from its raw parameters (`<prefix>/targets/*`, `rules/*`,
 * `silences/*`, `discovery/*`): validated whole, every problem naming its parameter and field.
 */

import type * as zm from 'zod/mini';
import { parseSilencesDocuments, type Silence } from './alerts/silences.ts';
import { type DiscoveryDocument, readDiscoveryDocument } from './discovery/document.ts';
import { ProblemListError } from './errors.ts';
import { didYouMean } from './nearest.ts';
import { DEFAULT_RULES, rulesFromDocuments } from './rules/document.ts';
import { DocumentsValidationError } from './rules/problems.ts';
import type { Rule, ValidationProblem } from './rules/types.ts';
import { redactCredentials, urlHasCredentials } from './text/sanitize.ts';
import { z } from './zod.ts';

/** Parameter name -> value, for each folder. */
interface RawConfig {
  targets: Record<string, string>;
  rules: Record<string, string>;
  silences: Record<string, string>;
  /** `<prefix>/discovery/*`: where the fleet is listed from (absent in copies stored before discovery). */
  discovery?: Record<string, string>;
  /**
   * The targets the run's listings rendered, `<discovery parameter>/<target name>` -> the target's
   * JSON as a target parameter holds it. Not read from SSM: the run adds it, so the stored last
   * valid configuration and the shard messages carry the list in force (and a target that left it
   * is removed as a deleted target parameter is).
   */
  discovered?: Record<string, string>;
}

interface TargetConfig {
  name: string;
  url: string;
  timeoutMs?: number;
  maxBytes?: number;
  labels: Record<string, string>;
  /** SSM SecureString holding `user:password`. */
  authParameter?: string;
  /** SSM parameter holding a PEM CA bundle. */
  caBundleParameter?: string;
  /** The server's MaxRequestWorkers: slot ratios divide by it instead of the printed positions. */
  maxRequestWorkers?: number;
  /** The Lambda may connect to loopback for this target (a sidecar); src/core/addressPolicy.ts. */
  allowLoopback?: boolean;
  /**
   * The discovery parameter that listed this target (absent: a target parameter). Its secrets are
   * the document's (`<prefix>/secrets/<discovery name>`), shared by every target it lists.
   */
  origin?: string;
}

interface MonitorConfig {
  /** The configured targets, then the discovered ones the run joined (one name each). */
  targets: TargetConfig[];
  rules: Rule[];
  silences: Silence[];
  /** The valid discovery documents (absent: none). */
  discovery?: DiscoveryDocument[];
}

/**
 * Which SSM parameters a target may name. Secrets are scoped per target: whoever may write one
 * target must not be able to have another target's password sent to a host of their choosing.
 * The function's role cannot enforce this (targets come and go without a deploy, IAM is per
 * function), so this validation does, and the run checks again right before a secret is read.
 */
interface SecretScope {
  /** The SSM prefix, e.g. `/httpd-status-alerts` (no trailing `/`). */
  prefix: string;
  /** Secrets every target may name (the `sharedSecretParameters` deploy option), each under `<prefix>/secrets/`. */
  sharedSecretParameters: readonly string[];
}

interface ConfigProblem {
  parameter: string;
  field: string | null;
  message: string;
}

class ConfigurationError extends ProblemListError<ConfigProblem> {
  constructor(problems: ConfigProblem[], options?: ErrorOptions) {
    super(
      `invalid configuration: ${problems.map((p) => `${p.parameter}${p.field ? ` field ${p.field}` : ''}: ${p.message}`).join('; ')}`,
      problems,
      options,
    );
    this.name = 'ConfigurationError';
  }
}

const TARGET_NAME = /^[A-Za-z0-9][A-Za-z0-9_.-]{0,62}$/;

/**
 * An SSM prefix, as the stack, the Lambda and the CLI accept it: `/`-separated segments of
 * letters, digits, `_`, `.` and `-`, none empty (`/a//b` is refused), no trailing `/`.
 */
const SSM_PREFIX = /^(\/[A-Za-z0-9_.-]+)+$/;

const SSM_NAME = z.string().check(z.startsWith('/', { error: 'expected an SSM parameter name starting with /' }));

/**
 * Why a URL with credentials in any form (user, password, a typo's `https:/u:p@h`, percent-encoded)
 * is refused: a target parameter is a plain String, so the password would sit there unencrypted,
 * and the fetcher sends only the credentials of `authParameter`. Checked first, and alone: the
 * problem shown for such a URL is the password in it.
 */
const URL_WITHOUT_CREDENTIALS = z.refine<string>((url) => !urlHasCredentials(url), {
  error: 'expected a URL without credentials (put "user:password" in a SecureString named by authParameter)',
  abort: true,
});

const TARGET_SCHEMA = z.strictObject({
  url: z
    .string()
    .check(URL_WITHOUT_CREDENTIALS, z.regex(/^https?:\/\/[^/\s]+/, { error: 'expected an http:// or https:// URL' })),
  timeoutMs: z.optional(z.int().check(z.gte(100), z.lte(60_000))),
  maxBytes: z.optional(z.int().check(z.gte(1024), z.lte(64 * 1024 * 1024))),
  labels: z.optional(z.record(z.string(), z.string().check(z.maxLength(256)))),
  authParameter: z.optional(SSM_NAME),
  caBundleParameter: z.optional(SSM_NAME),
  maxRequestWorkers: z.optional(z.int().check(z.gte(1), z.lte(1_000_000))),
  allowLoopback: z.optional(z.boolean()),
});

const TARGET_FIELDS = Object.keys(TARGET_SCHEMA.shape);

/** A list document's `defaults`: any target field but `name`, each validated as in a target, none required. */
const DEFAULTS_SCHEMA = z.partial(TARGET_SCHEMA);

/** The fields a target list document holds: its entries, and what they share. */
const LIST_FIELDS = ['targets', 'defaults'] as const;

/** `a string`, `an object`: zod's expected type in the project's "expected ..., found ..." words. */
function article(type: string): string {
  return `${/^[aeiou]/.test(type) ? 'an' : 'a'} ${type}`;
}

/** A found value for a message: JSON, credentials in URLs redacted before it is shortened. */
function describe(value: unknown): string {
  const text = redactCredentials(JSON.stringify(value) ?? String(value));
  return text.length > 60 ? `${text.slice(0, 57)}...` : text;
}

/** What `readNamedJson` answers when the name or the JSON was refused (its problem pushed). */
const NOT_READ: unique symbol = Symbol('not read');

/**
 * A configuration parameter's JSON, once its name passed `TARGET_NAME` (the `kind` names it in the
 * message: a target, a discovery). A refusal pushes its problem and answers `NOT_READ`.
 */
function readNamedJson(
  parameter: string,
  kind: string,
  name: string,
  text: string,
  problems: ConfigProblem[],
): unknown | typeof NOT_READ {
  if (!TARGET_NAME.test(name)) {
    problems.push({
      parameter,
      field: null,
      message: `expected a ${kind} name of letters, digits, _ . -, found "${name}"`,
    });
    return NOT_READ;
  }
  try {
    return JSON.parse(text);
  } catch (error) {
    problems.push({
      parameter,
      field: null,
      message: `expected JSON, found ${describe(text)} (${(error as Error).message})`,
    });
    return NOT_READ;
  }
}

/** `<prefix>/secrets/`: the one folder whose SecureStrings the function's role may decrypt. */
function secretsFolder(prefix: string): string {
  return `${prefix}/secrets/`;
}

/** `target`'s own secrets, `<prefix>/secrets/<target>` and below, and the shared ones, in words. */
function allowedSecrets(target: string, scope: SecretScope): string {
  const shared = scope.sharedSecretParameters;
  return `${secretsFolder(scope.prefix)}${target} or a parameter below it, or a shared secret (sharedSecretParameters: ${shared.length === 0 ? 'none' : shared.join(', ')})`;
}

function isOwnOrShared(target: string, parameter: string, scope: SecretScope): boolean {
  const own = `${secretsFolder(scope.prefix)}${target}`;
  return parameter === own || parameter.startsWith(`${own}/`) || scope.sharedSecretParameters.includes(parameter);
}

/**
 * Why the target `target` may not name `parameter` in `field` (null: it may). `authParameter`:
 * the target's own secrets or a shared one. `caBundleParameter`: a CA bundle is public, so any
 * parameter under `<prefix>/` (one bundle may serve the whole fleet), but under `<prefix>/secrets/`
 * only what `authParameter` may name: another target's password is not read as a bundle either.
 *
 * @example
 * scopeProblem('web-1', 'authParameter', '/p/secrets/web-2', { prefix: '/p', sharedSecretParameters: [] })
 * // 'expected /p/secrets/web-1 or a parameter below it, or a shared secret (sharedSecretParameters: none), found "/p/secrets/web-2"'
 */
function scopeProblem(
  target: string,
  field: 'authParameter' | 'caBundleParameter',
  parameter: string,
  scope: SecretScope,
): string | null {
  const found = `found ${describe(parameter)}`;
  const inSecrets = parameter.startsWith(secretsFolder(scope.prefix));
  if (field === 'authParameter')
    return inSecrets && isOwnOrShared(target, parameter, scope)
      ? null
      : `expected ${allowedSecrets(target, scope)}, ${found}`;
  if (!parameter.startsWith(`${scope.prefix}/`))
    return `expected a parameter under ${scope.prefix}/ (the function reads only there), ${found}`;
  return !inSecrets || isOwnOrShared(target, parameter, scope)
    ? null
    : `expected a parameter under ${scope.prefix}/ and, under ${secretsFolder(scope.prefix)}, only ${allowedSecrets(target, scope)}, ${found}`;
}

/**
 * Whose secrets a target names: a discovered target's are its discovery document's (the
 * document `<prefix>/discovery/web` owns `<prefix>/secrets/web`), any other target's its own.
 */
function secretOwner(target: Pick<TargetConfig, 'name' | 'origin'>, scope: SecretScope): string {
  const { origin } = target;
  return origin?.startsWith(`${scope.prefix}/discovery/`) === true ? leaf(origin) : target.name;
}

/** The problems of the parameters `target` names (`authParameter`, `caBundleParameter`), each with its field. */
function targetScopeProblems(
  target: Pick<TargetConfig, 'name' | 'authParameter' | 'caBundleParameter' | 'origin'>,
  scope: SecretScope,
): Array<{ field: 'authParameter' | 'caBundleParameter'; message: string }> {
  const out: Array<{ field: 'authParameter' | 'caBundleParameter'; message: string }> = [];
  const owner = secretOwner(target, scope);
  for (const field of ['authParameter', 'caBundleParameter'] as const) {
    const parameter = target[field];
    const message = parameter === undefined ? null : scopeProblem(owner, field, parameter, scope);
    if (message !== null) out.push({ field, message });
  }
  return out;
}

/** The fields naming parameters whose scope depends on the target's name. */
const SECRET_FIELDS = ['authParameter', 'caBundleParameter'] as const;

/** A field path inside `at` (a list entry, `targets[3]`): `targets[3].url`; `at` null: the field alone. */
function fieldAt(at: string | null, field: string | null): string | null {
  if (at === null) return field;
  return field === null ? at : `${at}.${field}`;
}

/**
 * One target parameter validated: its name, its JSON, its fields, and the parameters it names
 * within `scope`. The one target validation of the Lambda, the stack's seeded targets, the CLI and
 * discovered targets (`origin`: the discovery parameter that listed it, whose secrets it names).
 * Problems are added to `problems`; null when there is any.
 */
function readTarget(
  parameter: string,
  name: string,
  text: string,
  problems: ConfigProblem[],
  scope: SecretScope,
  origin?: string,
): TargetConfig | null {
  const json = readNamedJson(parameter, 'target', name, text, problems);
  if (json === NOT_READ) return null;
  return readTargetFields({ parameter, at: null }, name, json, problems, scope, origin);
}

/**
 * A target's fields validated (`json`: its document without `name`), each problem located in
 * `where`: the parameter and, for an entry of a list document, its path (`targets[3]`).
 */
function readTargetFields(
  where: { parameter: string; at: string | null },
  name: string,
  json: unknown,
  problems: ConfigProblem[],
  scope: SecretScope,
  origin?: string,
): TargetConfig | null {
  const { parameter, at } = where;
  const parsed = TARGET_SCHEMA.safeParse(json);
  if (!parsed.success) {
    pushSchemaProblems(where, json, parsed.error.issues, problems);
    return null;
  }
  const { labels, ...rest } = parsed.data;
  const target: TargetConfig = { name, ...rest, labels: labels ?? {}, ...(origin === undefined ? {} : { origin }) };
  const outOfScope = targetScopeProblems(target, scope);
  for (const { field, message } of outOfScope) problems.push({ parameter, field: fieldAt(at, field), message });
  return outOfScope.length === 0 ? target : null;
}

/** The schema's issues with `json` in the project's words, each located in `where`. */
function pushSchemaProblems(
  where: { parameter: string; at: string | null },
  json: unknown,
  issues: ReadonlyArray<zm.core.$ZodIssue>,
  problems: ConfigProblem[],
): void {
  const { parameter, at } = where;
  for (const issue of issues) {
    const field = fieldAt(at, issue.path.length > 0 ? issue.path.join('.') : null);
    const found = issue.path.reduce<unknown>((v, k) => (v as Record<string, unknown> | undefined)?.[k as string], json);
    if (issue.code === 'unrecognized_keys') {
      // Named as the user wrote it, with the field meant: `timeout` -> "did you mean timeoutMs?".
      for (const key of issue.keys) {
        const message = `expected one of the fields ${TARGET_FIELDS.join(', ')}, found "${key}"${didYouMean(key, TARGET_FIELDS)}`;
        problems.push({ parameter, field: field === null ? key : `${field}.${key}`, message });
      }
    } else if (issue.code === 'invalid_type') {
      const what = found === undefined ? 'nothing (the field is required)' : describe(found);
      problems.push({ parameter, field, message: `expected ${article(issue.expected)}, found ${what}` });
    } else problems.push({ parameter, field, message: `${issue.message}, found ${describe(found)}` });
  }
}

/**
 * Whether a target parameter's JSON is a list document, `{ "targets": [ { "name": ..., "url":
 * ... }, ... ] }`, rather than one target's document (which has no `targets` field).
 */
function isTargetList(json: unknown): json is Record<string, unknown> {
  return typeof json === 'object' && json !== null && !Array.isArray(json) && Object.hasOwn(json, 'targets');
}

/** Where a configured target is written: its parameter and, in a list document, its index. */
interface TargetPlace {
  parameter: string;
  /** Its index in the list document's `targets` (null: the parameter is this one target's document). */
  index: number | null;
}

/** A place in words, for messages: `/p/targets/web-1`, `/p/targets/fleet-a targets[3]`. */
function describePlace(place: TargetPlace): string {
  return place.index === null ? place.parameter : `${place.parameter} targets[${place.index}]`;
}

type Fields = Record<string, unknown>;

const isFields = (value: unknown): value is Fields =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/**
 * A list entry as the Lambda reads it: the list's `defaults`, then the entry's own fields over
 * them, `labels` merged key by key (the entry's label wins). A `labels` that is not an object on
 * either side is not merged: the entry's, else the default's, is validated as written.
 *
 * @example
 * mergeDefaults({ timeoutMs: 5000, labels: { env: 'prod', team: 'web' } }, { name: 'web-1', url: 'http://web-1/', labels: { team: 'db' } })
 * // { timeoutMs: 5000, labels: { env: 'prod', team: 'db' }, name: 'web-1', url: 'http://web-1/' }
 */
function mergeDefaults(defaults: Fields | undefined, entry: Fields): Fields {
  if (defaults === undefined) return entry;
  const merged: Fields = { ...defaults, ...entry };
  if (isFields(defaults.labels) && isFields(entry.labels)) merged.labels = { ...defaults.labels, ...entry.labels };
  return merged;
}

/**
 * Whether the value at `field` (`url`, `labels.team`) of the merged entry is the default's: the
 * entry does not set it and the defaults do.
 */
function fromDefaults(field: string, defaults: Fields, entry: Fields): boolean {
  const [top = '', label] = field.split('.', 2);
  if (top === 'labels' && label !== undefined && isFields(entry.labels) && isFields(defaults.labels))
    return !Object.hasOwn(entry.labels, label) && Object.hasOwn(defaults.labels, label);
  return !Object.hasOwn(entry, top) && Object.hasOwn(defaults, top);
}

/**
 * A list document's `defaults` validated, problems at `defaults.<field>`: the fields (those with a
 * problem, and the whole of them when they are not an object) are answered so that the entries'
 * problems with them are not repeated once per entry. Undefined: the document has no defaults.
 */
function readListDefaults(
  parameter: string,
  json: Fields,
  problems: ConfigProblem[],
): { defaults: Fields | undefined; bad: string[] } | null {
  if (!Object.hasOwn(json, 'defaults')) return { defaults: undefined, bad: [] };
  const defaults = json.defaults;
  if (!isFields(defaults)) {
    problems.push({
      parameter,
      field: 'defaults',
      message: `expected an object of the target fields every entry shares, e.g. { "timeoutMs": 5000 }, found ${describe(defaults)}`,
    });
    return null;
  }
  const found: ConfigProblem[] = [];
  const { name, ...fields } = defaults;
  if (name !== undefined)
    found.push({
      parameter,
      field: 'defaults.name',
      message: `expected no name in defaults (each entry names itself), found ${describe(name)}`,
    });
  const parsed = DEFAULTS_SCHEMA.safeParse(fields);
  if (!parsed.success) pushSchemaProblems({ parameter, at: 'defaults' }, fields, parsed.error.issues, found);
  problems.push(...found);
  return { defaults: fields, bad: found.map((p) => (p.field ?? '').slice('defaults.'.length)) };
}

/**
 * The targets of one target parameter, validated: a single target's document (named after the
 * parameter) or a list document whose entries each carry their `name`, merged with the list's
 * `defaults` (`mergeDefaults`) and then validated as a target. Every bad entry adds its
 * problems, located by its index (`targets[3].url`), and the others are still read; a bad default
 * is reported once, at `defaults.<field>`, and a default out of an entry's secrets scope (a
 * default `authParameter` that is not a shared secret) at each such entry.
 */
function readTargetParameter(
  parameter: string,
  text: string,
  problems: ConfigProblem[],
  scope: SecretScope,
): Array<{ target: TargetConfig; place: TargetPlace }> {
  const json = readNamedJson(parameter, 'target', leaf(parameter), text, problems);
  if (json === NOT_READ) return [];
  if (!isTargetList(json)) {
    const target = readTargetFields({ parameter, at: null }, leaf(parameter), json, problems, scope);
    return target === null ? [] : [{ target, place: { parameter, index: null } }];
  }
  for (const key of Object.keys(json).filter((k) => !(LIST_FIELDS as readonly string[]).includes(k)))
    problems.push({
      parameter,
      field: key,
      message: `expected only the fields ${LIST_FIELDS.join(' and ')} in a target list document, found "${key}"${didYouMean(key, LIST_FIELDS)}`,
    });
  const listDefaults = readListDefaults(parameter, json, problems);
  const entries = json.targets;
  if (!Array.isArray(entries)) {
    problems.push({
      parameter,
      field: 'targets',
      message: `expected an array of targets, each { "name": ..., "url": ... }, found ${describe(entries)}`,
    });
    return [];
  }
  if (listDefaults === null) return [];
  const { defaults, bad } = listDefaults;
  const out: Array<{ target: TargetConfig; place: TargetPlace }> = [];
  entries.forEach((entry: unknown, index) => {
    const at = `targets[${index}]`;
    if (!isFields(entry)) {
      problems.push({
        parameter,
        field: at,
        message: `expected a target { "name": ..., "url": ... }, found ${describe(entry)}`,
      });
      return;
    }
    const { name, ...own } = entry;
    const fields = mergeDefaults(defaults, own);
    // A problem with a default the entry keeps: a bad one is already reported at `defaults.<field>`;
    // one out of this entry's scope is the entry's, said to come from the defaults.
    const found: ConfigProblem[] = [];
    const located = (p: ConfigProblem): ConfigProblem | null => {
      const field = (p.field ?? '').slice(at.length + 1);
      if (defaults === undefined || !p.field?.startsWith(`${at}.`) || !fromDefaults(field, defaults, own)) return p;
      if (bad.some((b) => field === b || field.startsWith(`${b}.`) || b.startsWith(`${field}.`))) return null;
      return { ...p, message: `${p.message} (from the list's defaults)` };
    };
    if (typeof name !== 'string' || !TARGET_NAME.test(name)) {
      const what = name === undefined ? 'nothing (the field is required)' : describe(name);
      problems.push({
        parameter,
        field: `${at}.name`,
        message: `expected a target name of letters, digits, _ . - (at most 63), found ${what}`,
      });
      // Its other fields are still checked (every problem of the entry at once), but not the
      // secrets it names: whose they may be depends on the name.
      readTargetFields({ parameter, at }, '-', fields, found, { prefix: '', sharedSecretParameters: [] });
      const rest = found.filter((p) => !SECRET_FIELDS.some((f) => p.field === `${at}.${f}`));
      problems.push(...rest.flatMap((p) => located(p) ?? []));
      return;
    }
    const target = readTargetFields({ parameter, at }, name, fields, found, scope);
    problems.push(...found.flatMap((p) => located(p) ?? []));
    if (target !== null) out.push({ target, place: { parameter, index } });
  });
  return out;
}

/**
 * One target as a target parameter holds it, read leniently (names only, not validated): what
 * the configuration's target names, the shard messages and the command line build on.
 */
interface TargetEntry extends TargetPlace {
  name: string;
  /** The target's document as written: the whole parameter's JSON, or the list entry (with its `name`). */
  document: unknown;
  /** A list entry's list's `defaults` as written (absent: a one-target parameter, or a list without them). */
  defaults?: unknown;
}

/**
 * Every target the parameters of `targets` hold, in parameter order then list order. A parameter
 * that is not JSON, or not a list, counts as one target named after it (as the validation reads
 * it); a list entry without a string `name` is left out.
 */
function targetEntries(targets: Record<string, string>): TargetEntry[] {
  const out: TargetEntry[] = [];
  for (const { source: parameter, text } of toDocs(targets)) {
    let json: unknown;
    try {
      json = JSON.parse(text);
    } catch {
      json = undefined;
    }
    if (!isTargetList(json) || !Array.isArray(json.targets)) {
      out.push({ parameter, index: null, name: leaf(parameter), document: json });
      continue;
    }
    const shared = Object.hasOwn(json, 'defaults') ? { defaults: json.defaults } : {};
    json.targets.forEach((document: unknown, index) => {
      const name = (document as { name?: unknown } | null)?.name;
      if (typeof name === 'string') out.push({ parameter, index, name, document, ...shared });
    });
  }
  return out;
}

/**
 * The target an entry stands for, as written: a list entry merged with its list's `defaults`
 * (`mergeDefaults`, its `name` first), a one-target parameter's document as it is.
 */
function mergedDocument(entry: Pick<TargetEntry, 'document' | 'defaults'>): unknown {
  const { document, defaults } = entry;
  if (!isFields(document) || !isFields(defaults)) return document;
  const { name, ...own } = document;
  const { name: _ignored, ...shared } = defaults;
  return { name, ...mergeDefaults(shared, own) };
}

/**
 * A list document's text: its `defaults` (left out when absent or empty), then its entries,
 * each with its `name`, as compact JSON.
 */
function renderTargetList(documents: readonly unknown[], defaults?: unknown): string {
  const none = defaults === undefined || (isFields(defaults) && Object.keys(defaults).length === 0);
  return JSON.stringify(none ? { targets: documents } : { defaults, targets: documents });
}

/** A rules/silences problem located by parameter; its rule (or `#n`) and field joined. */
function fromValidationProblem(p: ValidationProblem): ConfigProblem {
  return {
    parameter: p.source,
    field: [p.rule, p.field].filter((x) => x !== null).join('.') || null,
    message: p.message,
  };
}

/** A folder's parameters as documents, sorted by parameter name. */
function toDocs(record: Record<string, string>): Array<{ source: string; text: string }> {
  return Object.entries(record)
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([source, text]) => ({ source, text }));
}

/** The parsed documents, or `fallback` after adding the problems of a rejected set to `problems`. */
function parseOrCollect<T>(parse: () => T, fallback: T, problems: ConfigProblem[]): T {
  try {
    return parse();
  } catch (error) {
    if (!(error instanceof DocumentsValidationError)) throw error;
    problems.push(...error.problems.map(fromValidationProblem));
    return fallback;
  }
}

/** The last path segment of a parameter name: `/p/targets/web-1` -> `web-1`. */
function leaf(parameter: string): string {
  return parameter.slice(parameter.lastIndexOf('/') + 1);
}

/** Where a discovered target is kept in `RawConfig.discovered`: its discovery parameter, then its name. */
function discoveredKey(parameter: string, name: string): string {
  return `${parameter}/${name}`;
}

/** The discovery parameter of a `RawConfig.discovered` key. */
function discoveredOrigin(key: string): string {
  return key.slice(0, key.lastIndexOf('/'));
}

/** Every target a raw configuration names, configured and discovered: what a later one may have removed. */
function targetNames(raw: Pick<RawConfig, 'targets' | 'discovered'>): string[] {
  return [...targetEntries(raw.targets).map((e) => e.name), ...Object.keys(raw.discovered ?? {}).map(leaf)];
}

/** JSON with object keys sorted: two targets read from differently ordered documents compare equal. */
function canonical(value: unknown): string {
  if (typeof value !== 'object' || value === null) return JSON.stringify(value);
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`;
  const entries = Object.entries(value).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonical(v)}`).join(',')}}`;
}

/**
 * Whether `target` at `place` is the same target as `twin` at `twinPlace` being moved between a
 * one-target parameter and a list document: equal in every field (a list entry as merged with
 * its list's `defaults`), one of them alone in its parameter. A move writes the list, then deletes the old parameter, and a configuration read
 * between the two sees both; that is one target, not a conflict.
 */
function isMove(target: TargetConfig, place: TargetPlace, twin: TargetConfig, twinPlace: TargetPlace): boolean {
  return (place.index === null) !== (twinPlace.index === null) && canonical(target) === canonical(twin);
}

/**
 * The problem of a target whose name `twin` (read before it) already has, naming both places;
 * null when it is the same target being moved (`isMove`).
 */
function twinProblem(
  found: { target: TargetConfig; place: TargetPlace },
  twin: { target: TargetConfig; place: TargetPlace },
): ConfigProblem | null {
  const { target, place } = found;
  if (isMove(target, place, twin.target, twin.place)) return null;
  return {
    parameter: place.parameter,
    field: place.index === null ? null : `targets[${place.index}].name`,
    message: `expected a unique target name, found "${target.name}" again (also ${describePlace(twin.place)}: ${redactCredentials(twin.target.url)})`,
  };
}

/**
 * Validate the raw parameters, the parameters each target names within `scope`. Rules documents
 * add to the built-in default rules (merged by name); none means the built-in rules alone. A target
 * parameter holds one target's document or a list of them (`{ "targets": [ ... ] }`); a name is
 * unique across all of them.
 *
 * @throws ConfigurationError listing every problem, each with its parameter and field
 */
function buildMonitorConfig(raw: RawConfig, scope: SecretScope): MonitorConfig {
  const problems: ConfigProblem[] = [];
  const targets: TargetConfig[] = [];
  // By name: a linear scan per target made 10,000 targets take seconds.
  const byName = new Map<string, { target: TargetConfig; place: TargetPlace }>();
  const join = (target: TargetConfig, place: TargetPlace) => {
    const twin = byName.get(target.name);
    if (twin === undefined) {
      targets.push(target);
      byName.set(target.name, { target, place });
    } else {
      const problem = twinProblem({ target, place }, twin);
      if (problem !== null) problems.push(problem);
    }
  };
  for (const { source: parameter, text } of toDocs(raw.targets))
    for (const { target, place } of readTargetParameter(parameter, text, problems, scope)) join(target, place);
  // The list in force, as the run rendered it: each target in its discovery document's scope.
  for (const { source: key, text } of toDocs(raw.discovered ?? {})) {
    const target = readTarget(key, leaf(key), text, problems, scope, discoveredOrigin(key));
    // Never a move: its `origin` sets it apart from any configured twin.
    if (target !== null) join(target, { parameter: key, index: null });
  }
  const discovery: DiscoveryDocument[] = [];
  for (const { source: parameter, text } of toDocs(raw.discovery ?? {})) {
    const document = readDiscoveryDocument(parameter, text, problems, scope);
    if (document !== null) discovery.push(document);
  }
  const rules =
    Object.keys(raw.rules).length > 0
      ? parseOrCollect(() => rulesFromDocuments(toDocs(raw.rules)), DEFAULT_RULES, problems)
      : DEFAULT_RULES;
  const silences = parseOrCollect(() => parseSilencesDocuments(toDocs(raw.silences)), [], problems);
  if (problems.length > 0) throw new ConfigurationError(problems);
  return { targets, rules, silences, ...(discovery.length > 0 ? { discovery } : {}) };
}

export type { ConfigProblem, MonitorConfig, RawConfig, SecretScope, TargetConfig, TargetEntry, TargetPlace };
export {
  article,
  buildMonitorConfig,
  ConfigurationError,
  canonical,
  describe as describeFound,
  describePlace,
  discoveredKey,
  discoveredOrigin,
  isTargetList,
  leaf,
  mergeDefaults,
  mergedDocument,
  NOT_READ,
  readNamedJson,
  readTarget,
  readTargetParameter,
  renderTargetList,
  SSM_PREFIX,
  secretsFolder,
  TARGET_NAME,
  targetEntries,
  targetNames,
  targetScopeProblems,
  twinProblem,
};
