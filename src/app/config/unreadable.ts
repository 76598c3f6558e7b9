/**
 * A configuration source that could not be read (throttled, access denied, timed out) within its
 * budget: not an invalid configuration. The last valid configuration stays in force, the
 * `ConfigurationUnreadable` metric counts it, and no configuration page goes out (the
 * configuration may well be valid; a page would resolve the next minute, an incident for nothing).
 */
class ConfigUnreadableError extends Error {
  constructor(message: string, options?: ErrorOptions) {
    super(message, options);
    this.name = 'ConfigUnreadableError';
  }
}

export { ConfigUnreadableError };
