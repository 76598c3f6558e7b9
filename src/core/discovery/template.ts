/**
 * The templates of a discovery document (`url`, `name`, each label): text with `{{field}}` holes
 * filled from a discovered instance. Parsed once, when the document is read, every problem named;
 * rendering a parsed template cannot fail, it only says which field an instance lacks.
 */
import { didYouMean } from '../nearest.ts';

/** The fields of a discovered instance a template may name, besides `tag:<Key>`. */
const INSTANCE_FIELDS = ['privateIp', 'privateDns', 'publicIp', 'instanceId', 'availabilityZone', 'port'] as const;

type InstanceField = (typeof INSTANCE_FIELDS)[number];

/**
 * One instance (or IP target) as a source lists it. A field the source did not give is absent;
 * `port` is the target group's port (`elbv2` only); `tags` are the instance's EC2 tags.
 */
interface DiscoveredInstance {
  instanceId?: string;
  privateIp?: string;
  privateDns?: string;
  publicIp?: string;
  availabilityZone?: string;
  port?: number;
  tags: Record<string, string>;
}

type Segment = { kind: 'text'; text: string } | { kind: 'field'; field: InstanceField } | { kind: 'tag'; key: string };

/** A parsed template: literal text and holes, in order. */
interface Template {
  text: string;
  segments: readonly Segment[];
}

/** What a template may name in the document it belongs to. */
interface TemplateContext {
  /** `{{publicIp}}` is allowed (the document says `allowPublic: true`). */
  allowPublic: boolean;
  /** `{{port}}` is known (source `elbv2`: the target group's port). */
  hasPort: boolean;
}

const OPEN = 0x7b; // {
const CLOSE = 0x7d; // }

/** Tokenizer states: in literal text, or inside `{{ ... }}`. */
const STATE = { text: 0, hole: 1 } as const;

const KNOWN = [...INSTANCE_FIELDS, 'tag:<Key>'];

/** The problem of one hole's content, or null; `hole` is the content between the braces, trimmed. */
function holeProblem(hole: string, context: TemplateContext): string | null {
  const written = `"{{${hole}}}"`;
  if (hole.startsWith('tag:')) return hole.length > 4 ? null : `expected a tag key after "tag:", found ${written}`;
  if (!(INSTANCE_FIELDS as readonly string[]).includes(hole))
    return `expected a field ${KNOWN.join(', ')}, found ${written}${didYouMean(hole, INSTANCE_FIELDS)}`;
  if (hole === 'publicIp' && !context.allowPublic)
    return 'expected allowPublic: true beside {{publicIp}} (a public address is reached across the internet), found no allowPublic';
  if (hole === 'port' && !context.hasPort)
    return "expected {{port}} only with source elbv2 (it is the target group's port), found another source";
  return null;
}

function segmentOf(hole: string): Segment {
  return hole.startsWith('tag:')
    ? { kind: 'tag', key: hole.slice(4) }
    : { kind: 'field', field: hole as InstanceField };
}

/**
 * Parse `text`: one loop over its char codes. Unknown fields (with the nearest known one),
 * unclosed `{{`, a `}}` with no `{{` and an empty tag key are all named, each with its position.
 *
 * @example
 * parseTemplate('http://{{privateIp}}/server-status', { allowPublic: false, hasPort: false }).problems // []
 * parseTemplate('http://{{privateIP}}/', ctx).problems
 * // ['expected a field privateIp, ..., found "{{privateIP}}" (did you mean privateIp?)']
 */
function parseTemplate(text: string, context: TemplateContext): { template: Template; problems: string[] } {
  const segments: Segment[] = [];
  const problems: string[] = [];
  let state: number = STATE.text;
  let start = 0;
  let opened = 0;
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (state === STATE.text) {
      if (code === OPEN && text.charCodeAt(i + 1) === OPEN) {
        if (i > start) segments.push({ kind: 'text', text: text.slice(start, i) });
        state = STATE.hole;
        opened = i;
        start = i + 2;
        i++;
      } else if (code === CLOSE && text.charCodeAt(i + 1) === CLOSE) {
        problems.push(`expected "{{" before the "}}" at character ${i + 1}, found none`);
        i++;
      }
    } else if (code === CLOSE && text.charCodeAt(i + 1) === CLOSE) {
      const hole = text.slice(start, i).trim();
      const problem = holeProblem(hole, context);
      if (problem === null) segments.push(segmentOf(hole));
      else problems.push(problem);
      state = STATE.text;
      start = i + 2;
      i++;
    }
  }
  if (state === STATE.hole)
    problems.push(
      `expected "}}" to close the "{{" at character ${opened + 1}, found the end of the template ${JSON.stringify(text.slice(opened, opened + 30))}`,
    );
  else if (start < text.length) segments.push({ kind: 'text', text: text.slice(start) });
  return { template: { text, segments }, problems };
}

/** `{{privateIp}}`, `{{tag:Team}}`: how a hole is written, for messages. */
function holeText(segment: Segment): string {
  return segment.kind === 'tag' ? `{{tag:${segment.key}}}` : segment.kind === 'field' ? `{{${segment.field}}}` : '';
}

/** An instance's value for a hole; an empty value counts as absent. */
function holeValue(segment: Segment, instance: DiscoveredInstance): string | undefined {
  if (segment.kind === 'text') return segment.text;
  const value = segment.kind === 'tag' ? instance.tags[segment.key] : instance[segment.field];
  const text = value === undefined ? undefined : String(value);
  return text === '' ? undefined : text;
}

/**
 * `template` filled from `instance`, or the first hole it has no value for.
 *
 * @example
 * renderTemplate(parsed('{{tag:Name}}-{{instanceId}}'), { instanceId: 'i-1', tags: { Name: 'web' } })
 * // { ok: true, text: 'web-i-1' }
 */
function renderTemplate(
  template: Template,
  instance: DiscoveredInstance,
): { ok: true; text: string } | { ok: false; missing: string } {
  let out = '';
  for (const segment of template.segments) {
    const value = holeValue(segment, instance);
    if (value === undefined) return { ok: false, missing: holeText(segment) };
    out += value;
  }
  return { ok: true, text: out };
}

export type { DiscoveredInstance, InstanceField, Template, TemplateContext };
export { INSTANCE_FIELDS, parseTemplate, renderTemplate };
