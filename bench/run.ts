/**
 * `npm run bench`: `parseReport` against a cheerio extraction (HTML) and the line-split floor, on
 * reports of 256, 1,024 and 20,000 slots generated from real 2.4.71 rows, in every form; then the
 * memory of one 20,000-slot parse (fresh child process) and a CPU profile of the 1,024-slot HTML
 * parse, the per-target CPU of a steady warm run (bench/perTarget.ts), the hostile worst
 * cases (bench/worstCase.ts) and the memory of a fetch of 1-byte chunks (bench/fetchMemory.ts).
 * Prints tables; writes
 * bench/results/<stamp>.json and bench/results/latest.json.
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { isDeepStrictEqual } from 'node:util';
import { parseReport } from '../src/core/report/parse.ts';
import { generateSlots, modelOf } from '../test/support/generate.ts';
import { renderAuto, renderHtml } from '../test/support/generatePages.ts';
import { renderLynx } from '../test/support/generateText.ts';
import { parseWithCheerio } from './cheerioParser.ts';
import { fetchMemoryFigures, printFetchMemory } from './fetchMemory.ts';
import { measure, sinkValue, type Timing, unitCostRatio } from './measure.ts';
import { perTargetFigures, printPerTarget } from './perTarget.ts';
import { profileParser } from './profile.ts';
import { timeWorstCases } from './worstCase.ts';

const ROOT = fileURLToPath(new URL('../', import.meta.url));
const SIZES = [256, 1024, 20_000] as const;
const FORMS = ['html', 'auto', 'text80', 'text200'] as const;
type Form = (typeof FORMS)[number];
const TARGET = { cheerioRatio: 40, floorRatio: 15, peakMB: 64, linearRatio: 1.5 } as const;
/** Time per form for the alternated linearity ratio. */
const LINEARITY_BUDGET_MS = 3000;

/** The floor: one pass that only splits the input into lines (each line sliced out). */
function splitLines(text: string): string[] {
  const lines: string[] = [];
  let start = 0;
  for (let end = text.indexOf('\n'); end >= 0; end = text.indexOf('\n', start)) {
    lines.push(text.slice(start, end));
    start = end + 1;
  }
  if (start < text.length) lines.push(text.slice(start));
  return lines;
}

function render(form: Form, slots: number): string {
  const model = modelOf(generateSlots(slots, 'prefork'), { mpm: 'prefork' });
  if (form === 'html') return renderHtml(model);
  if (form === 'auto') return renderAuto(model);
  return renderLynx(model, form === 'text80' ? 80 : 200);
}

/** Time budget per case: enough samples for a median, the whole run under about 3 minutes. */
const budgetMs = (slots: number, impl: string): number =>
  impl === 'cheerio' ? (slots > 1024 ? 6000 : 2500) : slots > 1024 ? 2500 : 1200;

interface Row {
  form: Form;
  slots: number;
  inputKB: number;
  parser: Timing;
  cheerio: Timing | null;
  floor: Timing;
}

const f = (ms: number): string => (ms >= 10 ? ms.toFixed(1) : ms >= 1 ? ms.toFixed(2) : ms.toFixed(3));
const pad = (s: string | number, n: number): string => String(s).padStart(n);

function checkCheerioAgrees(html: string): void {
  const ours = parseReport(html);
  const theirs = parseWithCheerio(html);
  for (const key of ['server', 'scoreboard', 'counts', 'slots', 'legend', 'sslCache'] as const) {
    if (!isDeepStrictEqual(ours[key], theirs[key]))
      throw new Error(`expected the cheerio extraction to agree on ${key}, found a difference`);
  }
}

function timeAll(): Row[] {
  const rows: Row[] = [];
  for (const form of FORMS) {
    for (const slots of SIZES) {
      const text = render(form, slots);
      if (form === 'html' && slots === 256) checkCheerioAgrees(text);
      const parsed = parseReport(text).slots?.length;
      if (form !== 'auto' && parsed !== slots) throw new Error(`expected ${slots} slots from ${form}, found ${parsed}`);
      const row: Row = {
        form,
        slots,
        inputKB: Math.round(text.length / 1024),
        parser: measure(() => parseReport(text), budgetMs(slots, 'parser')),
        cheerio: form === 'html' ? measure(() => parseWithCheerio(text), budgetMs(slots, 'cheerio')) : null,
        floor: measure(() => splitLines(text), budgetMs(slots, 'floor')),
      };
      rows.push(row);
      const c = row.cheerio;
      process.stdout.write(
        `${form.padEnd(7)} ${pad(slots, 6)} ${pad(row.inputKB, 6)} KB | parser ${pad(f(row.parser.medianMs), 8)} ${pad(f(row.parser.p95Ms), 8)}` +
          ` | cheerio ${pad(c ? f(c.medianMs) : '-', 8)} ${pad(c ? f(c.p95Ms) : '-', 8)} | floor ${pad(f(row.floor.medianMs), 7)} ${pad(f(row.floor.p95Ms), 7)}` +
          ` | CPU: parser ${pad(f(row.parser.cpuMedianMs), 8)} x cheerio ${pad(c ? (c.cpuMedianMs / row.parser.cpuMedianMs).toFixed(0) : '-', 4)} /floor ${pad((row.parser.cpuMedianMs / row.floor.cpuMedianMs).toFixed(1), 5)}` +
          ` ${pad(((row.parser.cpuMedianMs * 1000) / slots).toFixed(3), 7)} us/slot\n`,
      );
    }
  }
  return rows;
}

/** Fresh processes per form: one reading of the peak RSS moved by 20 MB in a slow spell of a shared machine. */
const MEMORY_CHILDREN = 3;

/** The memory one 20,000-slot parse of `form` adds: the child whose peak is the median of `MEMORY_CHILDREN`. */
function memoryOf(form: Form, dir: string): Record<string, number | null> {
  const file = join(dir, `${form}-20000.txt`);
  writeFileSync(file, render(form, 20_000));
  const readings = Array.from({ length: MEMORY_CHILDREN }, () => {
    const child = spawnSync(process.execPath, ['--expose-gc', '--import', 'tsx', 'bench/memory.ts', file], {
      cwd: ROOT,
      encoding: 'utf8',
    });
    if (child.status !== 0)
      throw new Error(`expected the memory child to exit 0, found ${child.status}: ${child.stderr}`);
    return JSON.parse(child.stdout) as Record<string, number | null>;
  });
  readings.sort((a, b) => (a.peakAddedMB ?? 0) - (b.peakAddedMB ?? 0));
  return readings[Math.floor(MEMORY_CHILDREN / 2)] as Record<string, number | null>;
}

async function main(): Promise<void> {
  const started = Date.now();
  const loadBefore = loadavg();
  const machine = {
    cpu: cpus()[0]?.model ?? 'unknown',
    cores: cpus().length,
    node: process.version,
    platform: `${process.platform} ${process.arch}`,
  };
  process.stdout.write(
    `${machine.cpu}, ${machine.cores} cores, Node ${machine.node}, load average ${loadBefore.map((l) => l.toFixed(1)).join(' ')}. Times: wall median and p95 per op, ms; then the CPU-time median, which the ratios use (other work on the machine inflates wall times).\n`,
  );
  process.stdout.write(
    'form     slots  input    | parser   median      p95 | cheerio  median      p95 | floor median     p95 | CPU: parser ms, ratios, per slot\n',
  );
  const rows = timeAll();
  // Twice, the machine being shared: both runs are kept, the table shows each.
  const perTarget = [...(await perTargetFigures(1000, 8)), ...(await perTargetFigures(1000, 8))];
  printPerTarget(perTarget);
  const worstCases = timeWorstCases((line) => process.stdout.write(line));
  const fetchMemory = await fetchMemoryFigures();
  printFetchMemory(fetchMemory, (line) => process.stdout.write(line));

  const dir = mkdtempSync(join(tmpdir(), 'bench-in-'));
  let memory: Record<string, Record<string, number | null>>;
  let hotSpots: Record<'html1024' | 'text80x20000', ReturnType<typeof profileParser>>;
  try {
    memory = Object.fromEntries((['html', 'auto', 'text80'] as const).map((form) => [form, memoryOf(form, dir)]));
    const htmlInput = join(dir, 'html-1024.txt');
    writeFileSync(htmlInput, render('html', 1024));
    const textInput = join(dir, 'text80-20000.txt');
    writeFileSync(textInput, render('text80', 20_000));
    hotSpots = { html1024: profileParser(htmlInput, 1500), text80x20000: profileParser(textInput, 40) };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  process.stdout.write(
    `\nOne 20,000-slot parse in a fresh process (MB; the median of ${MEMORY_CHILDREN} processes by peak): peak added = maxRSS after - RSS before\n`,
  );
  for (const [form, m] of Object.entries(memory)) {
    const v = (k: string): string => (m[k] ?? 0).toFixed(1);
    process.stdout.write(
      `${form.padEnd(7)} input ${v('inputMB')} | heap ${v('heapBeforeMB')} -> ${v('heapAfterMB')} (retained ${v('heapRetainedMB')}) | RSS ${v('rssBeforeMB')} -> ${v('rssAfterMB')} | peak added ${v('peakAddedMB')} (target < ${TARGET.peakMB})\n`,
    );
  }

  const html1024 = rows.find((r) => r.form === 'html' && r.slots === 1024) as Row;
  // Ratios of CPU time: the machine is shared, and the wall time counts waits for a core.
  const vsCheerio = (html1024.cheerio as Timing).cpuMedianMs / html1024.parser.cpuMedianMs;
  const vsFloor = html1024.parser.cpuMedianMs / html1024.floor.cpuMedianMs;
  const linear = FORMS.map((form) => {
    const per = SIZES.map((s) => {
      const r = rows.find((x) => x.form === form && x.slots === s) as Row;
      return (r.parser.cpuMedianMs * 1000) / s;
    });
    // The verdict: the two sizes timed in alternation (the table's rows were timed minutes apart).
    const small = render(form, 1024);
    const large = render(form, 20_000);
    const alternated = unitCostRatio(
      () => parseReport(small),
      1024,
      () => parseReport(large),
      20_000,
      LINEARITY_BUDGET_MS,
    );
    return {
      form,
      usPerSlot: per,
      ratio20000to1024: (per[2] as number) / (per[1] as number),
      alternatedRatio: alternated.ratio,
      alternatedRounds: alternated.rounds,
    };
  });
  process.stdout.write(
    `\nLinearity, parser CPU us/slot at 256 / 1,024 / 20,000 slots from the table (their ratio, 20,000 vs 1,024); then the same ratio with the two sizes timed in alternation, the median of its rounds (target <= ${TARGET.linearRatio}):\n`,
  );
  for (const l of linear)
    process.stdout.write(
      `${l.form.padEnd(7)} ${l.usPerSlot.map((u) => u.toFixed(3)).join(' / ')} (${l.ratio20000to1024.toFixed(2)}); alternated ${l.alternatedRatio.toFixed(2)} over ${l.alternatedRounds} rounds: ${l.alternatedRatio <= TARGET.linearRatio ? 'met' : 'NOT met'}\n`,
    );
  process.stdout.write(
    `\nTargets on the 1,024-slot HTML: ${vsCheerio.toFixed(0)}x faster than cheerio (target >= ${TARGET.cheerioRatio}: ${vsCheerio >= TARGET.cheerioRatio ? 'met' : 'NOT met'}), ` +
      `${vsFloor.toFixed(1)}x the floor (target <= ${TARGET.floorRatio}: ${vsFloor <= TARGET.floorRatio ? 'met' : 'NOT met'}).\n`,
  );
  for (const [title, spots] of [
    ['1,024-slot HTML parsed 1,500 times', hotSpots.html1024],
    ['20,000-slot lynx 80-column dump parsed 40 times', hotSpots.text80x20000],
  ] as const) {
    process.stdout.write(`\nCPU profile (node --cpu-prof), ${title}, top self time:\n`);
    for (const h of spots)
      process.stdout.write(`${pad(h.selfPercent.toFixed(1), 5)}%  ${h.fn.padEnd(28)} ${h.where}\n`);
  }

  const result = {
    date: new Date().toISOString(),
    machine,
    targets: TARGET,
    rows,
    memory,
    linear,
    html1024: { vsCheerio, vsFloor },
    hotSpots,
    perTarget,
    load: { before: loadBefore, after: loadavg() },
    worstCases,
    fetchMemory,
    seconds: (Date.now() - started) / 1000,
    sink: sinkValue(),
  };
  const out = fileURLToPath(new URL('results/', import.meta.url));
  mkdirSync(out, { recursive: true });
  writeFileSync(join(out, `${result.date.replace(/[:.]/g, '-')}.json`), `${JSON.stringify(result, null, 2)}\n`);
  writeFileSync(join(out, 'latest.json'), `${JSON.stringify(result, null, 2)}\n`);
  process.stdout.write(`\nDone in ${result.seconds.toFixed(0)} s; results in bench/results/latest.json\n`);
}

await main();
