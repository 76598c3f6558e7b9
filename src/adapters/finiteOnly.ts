/**
 * Storage's guard against impossible numbers: DynamoDB's marshalling throws on Infinity and NaN,
 * which would fail a whole run over one report saying `Total Accesses: 1e+999`.
 */

/** A copy with every non-finite number replaced by null and every undefined property left out. */
function finiteOnly<T>(value: T): T {
  if (typeof value === 'number') return (Number.isFinite(value) ? value : null) as T;
  if (Array.isArray(value)) return value.map(finiteOnly) as T;
  if (value !== null && typeof value === 'object') {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value)) if (v !== undefined) out[k] = finiteOnly(v);
    return out as T;
  }
  return value;
}

export { finiteOnly };
