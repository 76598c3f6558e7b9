/**
 * The fields `groupBy` may name (a leaf module: the rules schema and the group logic both read it).
 */

/** Group by the rule's name, its severity, or the target's name. */
const GROUP_FIELDS = ['rule', 'severity', 'target'] as const;
/** Or by a target label: `labels.<name>`. */
const LABEL_PREFIX = 'labels.';

export { GROUP_FIELDS, LABEL_PREFIX };
