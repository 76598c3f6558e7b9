/**
 * A validated alerting rule: one metric compared with a threshold, held for a duration.
 */
import type { StatusReport } from '../report/types.ts';
import type { NagiosRange } from './range.ts';

/** How urgent an alert of a rule is. */
const SEVERITIES = { critical: 'critical', warning: 'warning', info: 'info' } as const;
type Severity = (typeof SEVERITIES)[keyof typeof SEVERITIES];
/** The severities in order of urgency, as a list (schemas, option checks, messages). */
const SEVERITY_NAMES = Object.values(SEVERITIES) as [Severity, ...Severity[]];
/** What a schema says when a severity is none of them: `expected critical, warning or info`. */
const SEVERITY_EXPECTED = `expected ${SEVERITY_NAMES.slice(0, -1).join(', ')} or ${SEVERITY_NAMES.at(-1)}`;

/** Counter values of the previous good report, for deltas. */
type Counters = {
  totalAccesses: number | null;
  /** Absent from state written before it was kept: read as null. */
  totalKBytes?: number | null;
  uptimeSeconds: number | null;
  sslRetrieveHits: number | null;
  sslRetrieveMisses: number | null;
};

/** What one run learnt about a target: its report, or why there is none. */
type Observation =
  | { kind: 'report'; report: StatusReport }
  | {
      kind: 'down';
      /** One of `DOWN_REASONS` (src/core/downReasons.ts); the CLI adds `read`. */
      reason: string;
      /** One line for a person: what was expected and what was found (escaped). */
      detail: string;
    };

const OPS = ['<', '<=', '>', '>=', '==', '!='] as const;
type Op = (typeof OPS)[number];

interface Rule {
  /** Unique across all documents; lower-case letters, digits and `-`. */
  name: string;
  metric: string;
  op: Op;
  threshold: number;
  /** How long the condition must hold before the alert fires (`for`), in milliseconds. */
  forMs: number;
  /** How long a firing alert stays firing after its condition stopped holding (hysteresis). */
  keepFiringForMs: number;
  /**
   * Hysteresis: once firing, the alert resolves only when the value is on the other side of this
   * number (`<`/`<=`: value >= it; `>`/`>=`: value <= it); null: as soon as the condition stops holding.
   */
  clearThreshold: number | null;
  severity: Severity;
  summary: string | null;
  runbook: string | null;
  /** Below this many samples (events in the window, slots counted) the rule is not evaluated. */
  minSamples: number | null;
  /** Target names or `*` globs the rule applies to; null means every target. */
  targets: string[] | null;
  /**
   * What its alerts are grouped by into one page (Alertmanager's `group_by`): `rule`, `severity`,
   * `target` and `labels.<name>`; `[]` pages each alert on its own. Default `["rule"]`.
   */
  groupBy: string[];
  /** How long a group's page waits before an update about alerts that joined or resolved (`group_interval`). */
  groupIntervalMs: number;
  /**
   * A command-line threshold (`-w`/`-c`): the condition is that the value lies where this range
   * alerts, and `op`/`threshold` name its nearer side for messages. Absent on document rules.
   */
  range?: NagiosRange;
}

/** One thing wrong with a rules or silences document, located by source, rule and field. */
interface ValidationProblem {
  source: string;
  /** The rule's name, or `#3` (its position) when it has no valid name; null for the whole document. */
  rule: string | null;
  /** The field, e.g. `threshold` or `targets.1`; null for the whole rule or document. */
  field: string | null;
  message: string;
}

export type { Counters, Observation, Op, Rule, Severity, ValidationProblem };
export { OPS, SEVERITIES, SEVERITY_EXPECTED, SEVERITY_NAMES };
