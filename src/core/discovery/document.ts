/**
 * A discovery document (`<prefix>/discovery/<name>`, docs/discovery.md): which AWS source lists
 * the fleet, and the templates that make each listed instance a target. Validated whole like every
 * configuration document, each problem naming its parameter and field. The fields a target shares
 * with the configured ones are validated by the one target validation (`readTarget`), on the
 * templates rendered for an example instance, so a URL with credentials or a secret out of scope is
 * refused here with the same words as in a target parameter.
 */

import type { output } from 'zod/mini';
import {
  article,
  type ConfigProblem,
  describeFound,
  leaf,
  NOT_READ,
  readNamedJson,
  readTarget,
  type SecretScope,
  TARGET_NAME,
  type TargetConfig,
  targetScopeProblems,
} from '../monitorConfig.ts';
import { didYouMean } from '../nearest.ts';
import { z } from '../zod.ts';
import { type DiscoveredInstance, parseTemplate, renderTemplate, type Template } from './template.ts';

const DISCOVERY_SOURCES = ['ec2', 'autoscaling', 'elbv2'] as const;
type DiscoverySourceName = (typeof DISCOVERY_SOURCES)[number];

/** Listed again this often by default; never more often than `MIN_REFRESH_SECONDS` (API limits). */
const DEFAULT_REFRESH_SECONDS = 60;
const MIN_REFRESH_SECONDS = 30;
const MAX_REFRESH_SECONDS = 86_400;

/** The target name when the document gives none. */
const DEFAULT_NAME_TEMPLATE = '{{instanceId}}';

/** The label every discovered target carries: the discovery parameter that listed it, so its pages name it. */
const DISCOVERY_LABEL = 'discovery';

/** What to ask the source for: DescribeInstances' filters, group names, or target group ARNs. */
type DiscoveryQuery =
  | { source: 'ec2'; filters: Record<string, string[]> }
  | { source: 'autoscaling'; groups: string[] }
  | { source: 'elbv2'; targetGroups: string[] };

/** The source-specific field of each source. */
const QUERY_FIELD = { ec2: 'filters', autoscaling: 'groups', elbv2: 'targetGroups' } as const;

/** The fields of a target that apply to each discovered target as they are (validated by `readTarget`). */
const SHARED_TARGET_FIELDS = [
  'authParameter',
  'caBundleParameter',
  'timeoutMs',
  'maxBytes',
  'maxRequestWorkers',
  'allowLoopback',
] as const;

type SharedTargetFields = Partial<{
  authParameter: string;
  caBundleParameter: string;
  timeoutMs: number;
  maxBytes: number;
  maxRequestWorkers: number;
  allowLoopback: boolean;
}>;

interface DiscoveryDocument {
  /** The parameter, `<prefix>/discovery/web`. */
  parameter: string;
  /** Its last segment, `web`: the owner of the secrets the document may name (`<prefix>/secrets/web`). */
  name: string;
  query: DiscoveryQuery;
  url: Template;
  targetName: Template;
  labels: Record<string, Template>;
  refreshSeconds: number;
  /** The fields every discovered target carries as they are. */
  shared: SharedTargetFields;
  /** The scope each rendered target is validated in: the document's own secrets shared by its targets. */
  scope: SecretScope;
}

/** The instance-state filter is the monitor's own: only running instances are targets. */
const STATE_FILTER = 'instance-state-name';

/** `arn:aws:elasticloadbalancing:<region>:<account>:targetgroup/<name>/<id>` (any partition). */
const TARGET_GROUP_ARN =
  /^arn:aws[a-z-]*:elasticloadbalancing:[a-z0-9-]+:\d{12}:targetgroup\/[A-Za-z0-9-]{1,32}\/[0-9a-f]+$/;

const DISCOVERY_SCHEMA = z.object({
  source: z.enum(DISCOVERY_SOURCES),
  filters: z.optional(
    z.record(
      z.string().check(z.minLength(1), z.maxLength(255)),
      z.array(z.string().check(z.minLength(1), z.maxLength(255))).check(z.minLength(1), z.maxLength(200)),
    ),
  ),
  groups: z.optional(z.array(z.string().check(z.minLength(1), z.maxLength(255))).check(z.minLength(1))),
  targetGroups: z.optional(
    z
      .array(z.string().check(z.regex(TARGET_GROUP_ARN, { error: 'expected a target group ARN' })))
      .check(z.minLength(1)),
  ),
  url: z.string(),
  name: z.optional(z.string()),
  labels: z.optional(z.record(z.string(), z.string())),
  allowPublic: z.optional(z.boolean()),
  refreshSeconds: z.optional(z.int().check(z.gte(MIN_REFRESH_SECONDS), z.lte(MAX_REFRESH_SECONDS))),
});

const DOCUMENT_FIELDS = [...Object.keys(DISCOVERY_SCHEMA.shape), ...SHARED_TARGET_FIELDS];

/**
 * The values an example instance gives every field: the templates are rendered with them so the
 * target validation sees a URL, a name and labels as a discovered target would have them.
 */
const EXAMPLE_INSTANCE: DiscoveredInstance = {
  instanceId: 'i-0123456789abcdef0',
  privateIp: '10.0.0.1',
  privateDns: 'ip-10-0-0-1.eu-west-1.compute.internal',
  publicIp: '203.0.113.1',
  availabilityZone: 'eu-west-1a',
  port: 8080,
  tags: {},
};

/** An example instance that has every tag the templates name, each valued `tag-value`. */
function exampleFor(templates: readonly Template[]): DiscoveredInstance {
  const tags: Record<string, string> = {};
  for (const t of templates) for (const s of t.segments) if (s.kind === 'tag') tags[s.key] = 'tag-value';
  return { ...EXAMPLE_INSTANCE, tags };
}

// Found values as the target validation shows them: JSON, URL credentials redacted, shortened.
const describe = describeFound;

/** The schema's issues as problems in the project's "expected ..., found ..." words. */
function schemaProblems(
  parameter: string,
  issues: ReadonlyArray<{ code: string; path: PropertyKey[]; message: string; expected?: string }>,
  json: unknown,
): ConfigProblem[] {
  return issues.map((issue) => {
    const field = issue.path.length > 0 ? issue.path.join('.') : null;
    const found = issue.path.reduce<unknown>((v, k) => (v as Record<PropertyKey, unknown> | undefined)?.[k], json);
    if (issue.code === 'invalid_type') {
      const what = found === undefined ? 'nothing (the field is required)' : describe(found);
      return { parameter, field, message: `expected ${article(String(issue.expected))}, found ${what}` };
    }
    if (issue.code === 'invalid_value' && field === 'source')
      return { parameter, field, message: `expected one of ${DISCOVERY_SOURCES.join(', ')}, found ${describe(found)}` };
    return { parameter, field, message: `${issue.message}, found ${describe(found)}` };
  });
}

/** The query of a valid source: its own field required, the other sources' fields refused. */
function queryOf(
  parameter: string,
  data: output<typeof DISCOVERY_SCHEMA>,
  problems: ConfigProblem[],
): DiscoveryQuery | null {
  const own = QUERY_FIELD[data.source];
  let ok = true;
  for (const [source, field] of Object.entries(QUERY_FIELD)) {
    if (field === own || data[field] === undefined) continue;
    problems.push({
      parameter,
      field,
      message: `expected ${field} only with source ${source}, found it with source ${data.source}`,
    });
    ok = false;
  }
  if (data[own] === undefined) {
    const what = {
      ec2: 'DescribeInstances filters',
      autoscaling: 'Auto Scaling group names',
      elbv2: 'target group ARNs',
    };
    problems.push({
      parameter,
      field: own,
      message: `expected ${what[data.source]} (source ${data.source}), found nothing (the field is required)`,
    });
    return null;
  }
  if (data.filters?.[STATE_FILTER] !== undefined) {
    problems.push({
      parameter,
      field: `filters.${STATE_FILTER}`,
      message: `expected no ${STATE_FILTER} filter (only running instances are targets, the monitor adds it), found ${describe(data.filters[STATE_FILTER])}`,
    });
    ok = false;
  }
  if (!ok) return null;
  if (data.source === 'ec2') return { source: 'ec2', filters: data.filters ?? {} };
  if (data.source === 'autoscaling') return { source: 'autoscaling', groups: data.groups ?? [] };
  return { source: 'elbv2', targetGroups: data.targetGroups ?? [] };
}

/**
 * One discovery parameter validated: its name, its JSON, its fields, its templates, and the
 * parameters it names within `scope` (its own secrets are `<prefix>/secrets/<name>` and below,
 * shared by every target it lists). Problems are added to `problems`; null when there is any.
 *
 * @example
 * readDiscoveryDocument('/p/discovery/web', '{"source":"ec2","filters":{"tag:Role":["web"]},"url":"http://{{privateIp}}/server-status?auto"}', problems, scope)
 */
function readDiscoveryDocument(
  parameter: string,
  text: string,
  problems: ConfigProblem[],
  scope: SecretScope,
): DiscoveryDocument | null {
  const name = leaf(parameter);
  const json = readNamedJson(parameter, 'discovery', name, text, problems);
  if (json === NOT_READ) return null;
  if (!isRecord(json)) {
    problems.push({ parameter, field: null, message: `expected a JSON object, found ${describe(json)}` });
    return null;
  }
  const before = problems.length;
  const object = json as Record<string, unknown>;
  for (const key of Object.keys(object))
    if (!DOCUMENT_FIELDS.includes(key))
      problems.push({
        parameter,
        field: key,
        message: `expected one of the fields ${DOCUMENT_FIELDS.join(', ')}, found "${key}"${didYouMean(key, DOCUMENT_FIELDS)}`,
      });
  const parsed = DISCOVERY_SCHEMA.safeParse(json);
  if (!parsed.success) problems.push(...schemaProblems(parameter, parsed.error.issues, json));
  const data = parsed.success ? parsed.data : null;
  const query = data === null ? null : queryOf(parameter, data, problems);

  // The templates are parsed whatever else is wrong: every problem is named at once.
  const context = { allowPublic: object.allowPublic === true, hasPort: object.source === 'elbv2' };
  const labelTexts = isRecord(object.labels) ? Object.entries(object.labels) : [];
  if (isRecord(object.labels) && object.labels[DISCOVERY_LABEL] !== undefined)
    problems.push({
      parameter,
      field: `labels.${DISCOVERY_LABEL}`,
      message: `expected no label named ${DISCOVERY_LABEL} (the monitor sets it to the discovery parameter), found ${describe(object.labels[DISCOVERY_LABEL])}`,
    });
  const texts: Array<[string, unknown]> = [
    ['url', object.url],
    ['name', object.name ?? DEFAULT_NAME_TEMPLATE],
    ...labelTexts.map(([k, v]): [string, unknown] => [`labels.${k}`, v]),
  ];
  const good = new Map<string, Template>();
  for (const [field, text] of texts) {
    if (typeof text !== 'string') continue;
    const { template, problems: found } = parseTemplate(text, context);
    for (const message of found) problems.push({ parameter, field, message });
    if (found.length === 0) good.set(field, template);
  }

  // The document's own secrets, as a target named after it would own them; its targets share them.
  const shared: Record<string, unknown> = {};
  for (const field of SHARED_TARGET_FIELDS) if (object[field] !== undefined) shared[field] = object[field];
  const named: { name: string; authParameter?: string; caBundleParameter?: string } = { name };
  for (const field of ['authParameter', 'caBundleParameter'] as const)
    if (typeof shared[field] === 'string') named[field] = shared[field];
  for (const { field, message } of targetScopeProblems(named, scope)) {
    problems.push({ parameter, field, message });
    delete shared[field];
  }
  const documentScope: SecretScope = {
    prefix: scope.prefix,
    sharedSecretParameters: [
      ...scope.sharedSecretParameters,
      ...[shared.authParameter, shared.caBundleParameter].filter((p) => typeof p === 'string'),
    ],
  };

  // The example must pass the one target validation, or every instance would be skipped. A
  // template with problems of its own is replaced by a valid one, so each problem is named once.
  const labels: Record<string, Template> = {};
  for (const [key] of labelTexts) {
    const template = good.get(`labels.${key}`);
    if (template !== undefined) labels[key] = template;
  }
  const rendering: Rendering = {
    parameter,
    url: good.get('url') ?? parseTemplate(`http://${EXAMPLE_INSTANCE.privateIp}/`, context).template,
    targetName: good.get('name') ?? parseTemplate('example', context).template,
    labels,
    shared: shared as SharedTargetFields,
    scope: documentScope,
  };
  const example = renderDiscovered(rendering, exampleFor([...good.values()]));
  if ('problems' in example)
    for (const p of example.problems) {
      const templated = p.field === 'url' || p.field === 'name' || p.field?.startsWith('labels.') === true;
      problems.push(templated ? { ...p, message: `${p.message} (rendered for an example instance)` } : p);
    }
  if (problems.length > before || data === null || query === null) return null;
  return { ...rendering, name, query, refreshSeconds: data.refreshSeconds ?? DEFAULT_REFRESH_SECONDS };
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** What rendering an instance needs of a document. */
type Rendering = Pick<DiscoveryDocument, 'parameter' | 'url' | 'targetName' | 'labels' | 'shared' | 'scope'>;

/**
 * `instance` as a target of `document`, validated by `readTarget` like a target parameter, or
 * why it is not one: a field it lacks (`missing`), or the target validation's problems.
 */
function renderDiscovered(
  document: Rendering,
  instance: DiscoveredInstance,
): { target: TargetConfig } | { missing: string; field: string } | { problems: ConfigProblem[] } {
  const name = renderTemplate(document.targetName, instance);
  if (!name.ok) return { missing: name.missing, field: 'name' };
  const url = renderTemplate(document.url, instance);
  if (!url.ok) return { missing: url.missing, field: 'url' };
  const labels: Record<string, string> = {};
  for (const [key, template] of Object.entries(document.labels)) {
    const value = renderTemplate(template, instance);
    if (!value.ok) return { missing: value.missing, field: `labels.${key}` };
    labels[key] = value.text;
  }
  labels[DISCOVERY_LABEL] = document.parameter;
  if (!TARGET_NAME.test(name.text))
    return {
      problems: [
        {
          parameter: document.parameter,
          field: 'name',
          message: `expected a target name of letters, digits, _ . - (at most 63), found ${describe(name.text)}`,
        },
      ],
    };
  const problems: ConfigProblem[] = [];
  const text = JSON.stringify({
    url: url.text,
    labels,
    ...document.shared,
  });
  const target = readTarget(document.parameter, name.text, text, problems, document.scope, document.parameter);
  return target === null ? { problems } : { target };
}

export type { DiscoveryDocument, DiscoveryQuery, DiscoverySourceName, SharedTargetFields };
export {
  DEFAULT_REFRESH_SECONDS,
  DISCOVERY_LABEL,
  DISCOVERY_SOURCES,
  MIN_REFRESH_SECONDS,
  QUERY_FIELD,
  readDiscoveryDocument,
  renderDiscovered,
};
