/**
 * The fetch of a page sent as 1-byte HTTP chunks: 20 MiB offered against the default 4 MiB cap
 * (`DEFAULT_MAX_BYTES`); then as 128-byte chunks, small pieces the reader takes up to the cap. The
 * server runs here; each fetch runs in a fresh child
 * (`test/support/fetchPeak.ts`) that resets the RSS high-water mark just before it, so the peak
 * is the fetch's own. Part of `npm run bench:parser` (bench/run.ts); alone:
 * `npx tsx bench/fetchMemory.ts`.
 */
import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { DEFAULT_MAX_BYTES } from '../src/adapters/httpDefaults.ts';
import { startTinyChunkServer } from '../test/support/tinyChunks.ts';

const ROOT = fileURLToPath(new URL('../', import.meta.url));
const OFFERED_BYTES = 20 * 1024 * 1024;
const BLOCK_BYTES = 64 * 1024;
/** Long enough for the reader to reach the cap however slow it is: the figure is the cap's cost. */
const TIMEOUT_MS = 120_000;
const CHILDREN = 3;

interface FetchPeak {
  ok: boolean;
  reason: string | null;
  detail: string | null;
  peakAddedMB: number;
  peakFrom: string;
  cpuMs: number;
  wallMs: number;
}

/** Body bytes per HTTP chunk, one case each. */
const CHUNK_BYTES = [1, 128] as const;

interface FetchMemoryCase {
  chunkBytes: number;
  median: FetchPeak;
  peaksMB: number[];
  cpuMs: number[];
}

/** Fresh children, one after the other; the reading whose peak is the median, and every peak. */
async function fetchMemoryCase(chunkBytes: number): Promise<FetchMemoryCase> {
  const body = Buffer.alloc(BLOCK_BYTES, 'ScoreBoard: _W_K\n');
  const server = await startTinyChunkServer({ body, chunkBytes, repeat: OFFERED_BYTES / BLOCK_BYTES });
  const readings: FetchPeak[] = [];
  try {
    for (let i = 0; i < CHILDREN; i++) {
      const { stdout } = await promisify(execFile)(
        process.execPath,
        [
          '--expose-gc',
          '--import',
          'tsx',
          'test/support/fetchPeak.ts',
          server.url,
          String(DEFAULT_MAX_BYTES),
          String(TIMEOUT_MS),
        ],
        { cwd: ROOT, encoding: 'utf8', maxBuffer: 1024 * 1024 },
      );
      readings.push(JSON.parse(stdout) as FetchPeak);
    }
  } finally {
    await server.stop();
  }
  const peaksMB = readings.map((r) => r.peakAddedMB);
  const cpuMs = readings.map((r) => r.cpuMs);
  readings.sort((a, b) => a.peakAddedMB - b.peakAddedMB);
  return { chunkBytes, median: readings[Math.floor(CHILDREN / 2)] as FetchPeak, peaksMB, cpuMs };
}

async function fetchMemoryFigures(): Promise<FetchMemoryCase[]> {
  const cases: FetchMemoryCase[] = [];
  for (const chunkBytes of CHUNK_BYTES) cases.push(await fetchMemoryCase(chunkBytes));
  return cases;
}

function printFetchMemory(cases: readonly FetchMemoryCase[], out: (line: string) => void): void {
  out(
    `\nFetch of tiny HTTP chunks, ${OFFERED_BYTES / 1024 / 1024} MiB offered, ${DEFAULT_MAX_BYTES / 1024 / 1024} MiB cap, ${CHILDREN} fresh children each (peak added from ${cases[0]?.median.peakFrom}):\n`,
  );
  for (const c of cases) {
    const m = c.median;
    out(
      `${String(c.chunkBytes).padStart(3)}-byte chunks: ${m.ok ? 'ok' : m.reason} | peak added ${c.peaksMB.map((p) => p.toFixed(1)).join(' / ')} MB | CPU ${c.cpuMs.map((t) => t.toFixed(0)).join(' / ')} ms | wall of the median ${m.wallMs.toFixed(0)} ms\n`,
    );
    if (m.detail !== null) out(`    ${m.detail}\n`);
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  printFetchMemory(await fetchMemoryFigures(), (line) => process.stdout.write(line));
}

export { fetchMemoryFigures, printFetchMemory };
