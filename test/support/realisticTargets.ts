/**
 * Target parameters as a platform team writes them: an `authParameter` (the target's own secret)
 * and four labels, 262-293 bytes each (docs/scale.md's "100-300 B" at its heavy end). The size is
 * exact and spread over the range by the target's index, whatever the URL's length.
 */

const MIN_BYTES = 262;
const SPREAD = 32;

/** The name of target `i`: `fleet-00000`, `fleet-00001`, ... */
function fleetName(i: number): string {
  return `fleet-${String(i).padStart(5, '0')}`;
}

/** Target `i`'s parameter value: `url` plus its secret and labels, `262 + (i * 7) % 32` bytes long. */
function realisticTarget(i: number, prefix: string, url: string): string {
  const name = fleetName(i);
  const want = MIN_BYTES + ((i * 7) % SPREAD);
  const document = (role: string) =>
    JSON.stringify({
      url,
      allowLoopback: true,
      timeoutMs: 5000,
      authParameter: `${prefix}/secrets/${name}`,
      labels: { env: 'production', team: 'platform-web', region: 'eu-west-1', role },
    });
  const short = document('');
  if (Buffer.byteLength(short) > want)
    throw new Error(`expected a URL short enough for a ${want}-byte target, found ${url}`);
  return document('r'.repeat(want - Buffer.byteLength(short)));
}

/** `count` targets under `<prefix>/targets/`, by parameter name. */
function realisticTargets(count: number, prefix: string, url: string): Record<string, string> {
  const targets: Record<string, string> = {};
  for (let i = 0; i < count; i++) targets[`${prefix}/targets/${fleetName(i)}`] = realisticTarget(i, prefix, url);
  return targets;
}

export { fleetName, realisticTarget, realisticTargets };
