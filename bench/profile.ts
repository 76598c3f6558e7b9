/**
 * CPU profile of the parser: a child (`node --cpu-prof`) parses one input repeatedly; the
 * `.cpuprofile` is summed into self time per function, to say where the time goes.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string };
  hitCount?: number;
}

interface HotSpot {
  fn: string;
  where: string;
  selfPercent: number;
}

const ROOT = fileURLToPath(new URL('../', import.meta.url));

/** Parse `inputFile` `iterations` times under `--cpu-prof`; the top `top` functions by self time. */
function profileParser(inputFile: string, iterations: number, top = 12): HotSpot[] {
  const dir = mkdtempSync(join(tmpdir(), 'bench-prof-'));
  try {
    const child = spawnSync(
      process.execPath,
      [
        '--cpu-prof',
        `--cpu-prof-dir=${dir}`,
        '--import',
        'tsx',
        'bench/profileChild.ts',
        inputFile,
        String(iterations),
      ],
      { cwd: ROOT, encoding: 'utf8' },
    );
    if (child.status !== 0)
      throw new Error(`expected the profiling child to exit 0, found ${child.status}: ${child.stderr}`);
    const file = readdirSync(dir).find((f) => f.endsWith('.cpuprofile'));
    if (file === undefined) throw new Error(`expected a .cpuprofile in ${dir}, found none`);
    const nodes = (JSON.parse(readFileSync(join(dir, file), 'utf8')) as { nodes: ProfileNode[] }).nodes;
    const self = new Map<string, number>();
    let total = 0;
    for (const n of nodes) {
      const hits = n.hitCount ?? 0;
      if (n.callFrame.functionName === '(idle)' || hits === 0) continue;
      const url = n.callFrame.url.replace(/^file:\/\//, '').replace(ROOT, '');
      // tsx transpiles without keeping line numbers in the profile: name and file say enough.
      const key = `${n.callFrame.functionName || '(anonymous)'}\t${url}`;
      self.set(key, (self.get(key) ?? 0) + hits);
      total += hits;
    }
    return [...self.entries()]
      .sort((a, b) => b[1] - a[1])
      .slice(0, top)
      .map(([key, hits]) => {
        const [fn, where] = key.split('\t') as [string, string];
        return { fn, where, selfPercent: Math.round((hits / total) * 1000) / 10 };
      });
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

export { profileParser };
