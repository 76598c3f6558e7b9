/**
 * Discovered targets beside the configured ones: one name, one target, whatever its origin; and
 * what changed between two lists, so that a target that left is removed (never `target-down`).
 */
import type { ConfigProblem, TargetConfig } from '../monitorConfig.ts';
import type { DiscoveredTarget } from './listing.ts';

/** A discovered target left out because its name was taken, and by what. */
interface NameCollision {
  /** The discovery parameter whose instance was left out. */
  parameter: string;
  instance: string;
  name: string;
  /** What holds the name: `the configured target web-1`, `instance i-9 of /p/discovery/api`. */
  holder: string;
}

/**
 * The configured targets, then the discovered ones by parameter and name, each name once. A
 * configured target keeps its name; a discovered target whose name is taken is left out and named
 * as a problem of its discovery parameter, with what holds the name (`collisions`: the same, as
 * facts, for its discovery alert).
 *
 * @example
 * joinTargets([{ name: 'web-1', url: 'http://a/', labels: {} }], [{ parameter: '/p/discovery/web', instance: 'i-1', target: { name: 'web-1', ... } }]).problems
 * // [{ parameter: '/p/discovery/web', field: 'name', message: 'expected a unique target name, found "web-1" again for instance i-1 (also the configured target web-1)' }]
 */
function joinTargets(
  configured: readonly TargetConfig[],
  discovered: readonly DiscoveredTarget[],
): {
  targets: TargetConfig[];
  origins: Map<string, DiscoveredTarget>;
  problems: ConfigProblem[];
  collisions: NameCollision[];
} {
  const targets = [...configured];
  const holders = new Map<string, string>();
  for (const t of configured) holders.set(t.name, `the configured target ${t.name}`);
  const origins = new Map<string, DiscoveredTarget>();
  const problems: ConfigProblem[] = [];
  const collisions: NameCollision[] = [];
  const ordered = [...discovered].sort(
    (a, b) =>
      a.parameter.localeCompare(b.parameter) ||
      a.target.name.localeCompare(b.target.name) ||
      a.instance.localeCompare(b.instance),
  );
  for (const d of ordered) {
    const holder = holders.get(d.target.name);
    if (holder !== undefined) {
      collisions.push({ parameter: d.parameter, instance: d.instance, name: d.target.name, holder });
      problems.push({
        parameter: d.parameter,
        field: 'name',
        message: `expected a unique target name, found "${d.target.name}" again for instance ${d.instance} (also ${holder})`,
      });
      continue;
    }
    holders.set(d.target.name, `instance ${d.instance} of ${d.parameter}`);
    origins.set(d.target.name, d);
    targets.push(d.target);
  }
  return { targets, origins, problems, collisions };
}

/** Names that appeared, left, or stayed with other fields (a new address, other labels), each sorted. */
interface TargetDiff {
  appeared: string[];
  left: string[];
  changed: string[];
}

/**
 * What changed from `before` to `after`, by name. The run removes `left` as it removes a deleted
 * target parameter (its alerts resolve with the reason `removed`).
 */
function diffTargets(before: readonly TargetConfig[], after: readonly TargetConfig[]): TargetDiff {
  const old = new Map(before.map((t) => [t.name, JSON.stringify(t)]));
  const now = new Map(after.map((t) => [t.name, JSON.stringify(t)]));
  const appeared: string[] = [];
  const changed: string[] = [];
  for (const [name, text] of now) {
    const was = old.get(name);
    if (was === undefined) appeared.push(name);
    else if (was !== text) changed.push(name);
  }
  const left = [...old.keys()].filter((name) => !now.has(name));
  const sort = (names: string[]) => names.sort((a, b) => a.localeCompare(b));
  return { appeared: sort(appeared), left: sort(left), changed: sort(changed) };
}

export type { NameCollision, TargetDiff };
export { diffTargets, joinTargets };
