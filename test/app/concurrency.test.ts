import { createServer } from 'node:http';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { fetchStatusPage } from '../../src/adapters/httpStatusSource.ts';
import { createLatencyMemory, FetchAllError, fetchAll, inStartOrder } from '../../src/app/concurrency.ts';
import type { FetchResult } from '../../src/app/ports.ts';

describe('fetchAll', () => {
  it.each([
    [1, 1],
    [3, 3],
    [5, 5],
    [50, 12],
  ])('with concurrency %i runs at most %i calls at once and keeps the order', async (concurrency, expectedPeak) => {
    // Prepare
    const items = Array.from({ length: 12 }, (_, i) => i);
    let active = 0;
    let peak = 0;
    // Act
    const results = await fetchAll(items, concurrency, async (i) => {
      active++;
      peak = Math.max(peak, active);
      await new Promise((resolve) => setTimeout(resolve, (12 - i) % 4));
      active--;
      return i * 10;
    });
    // Assess
    expect(peak).toBe(expectedPeak);
    expect(results).toEqual(items.map((i) => i * 10));
  });

  it.each([0, -1, 1.5, Number.NaN])('rejects concurrency %d', async (concurrency) => {
    // Act + Assess
    await expect(fetchAll([1], concurrency, async (i) => i)).rejects.toThrow(
      new RangeError(`expected concurrency to be a positive integer, found ${concurrency}`),
    );
  });

  it('lets every call finish before reporting rejections', async () => {
    // Prepare
    const finished: number[] = [];
    // Act
    const outcome = fetchAll([0, 1, 2, 3], 2, async (i) => {
      await new Promise((resolve) => setTimeout(resolve, i));
      finished.push(i);
      if (i % 2 === 1) throw new Error(`item ${i} failed`);
      return i;
    });
    // Assess
    const error = await outcome.catch((e: unknown) => e);
    expect(error).toBeInstanceOf(FetchAllError);
    expect((error as FetchAllError).message).toBe('expected every call to settle with a value, found 2 of 4 rejected');
    expect((error as FetchAllError).errors.map((e: Error) => e.message)).toEqual(['item 1 failed', 'item 3 failed']);
    expect(finished.sort()).toEqual([0, 1, 2, 3]);
  });
});

describe('fetchAll with patience', () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  // Items 0-2 answer only when released (slow targets), 3-5 at once; two slots; 100 ms pass, then
  // the slow ones are released. Which items started before that, and how many ran at once.
  it.each([
    { intent: 'no patience: the slow calls keep their slots', options: {}, started: [0, 1], peak: 2 },
    {
      intent: 'patience, one call may wait without a slot',
      options: { patienceMs: 100, maxWaiting: 1 },
      started: [0, 1, 2],
      peak: 3,
    },
    {
      intent: 'patience, as many may wait as there are slots (the default)',
      options: { patienceMs: 100 },
      started: [0, 1, 2, 3, 4, 5],
      peak: 4,
    },
    {
      intent: 'patience longer than the wait: nothing changes',
      options: { patienceMs: 101 },
      started: [0, 1],
      peak: 2,
    },
  ])('$intent', async ({ options, started, peak }) => {
    // Prepare
    vi.useFakeTimers();
    const releases: Array<() => void> = [];
    const begun: number[] = [];
    let active = 0;
    let highest = 0;
    // Act
    const outcome = fetchAll(
      [0, 1, 2, 3, 4, 5],
      2,
      async (i) => {
        begun.push(i);
        highest = Math.max(highest, ++active);
        if (i <= 2) await new Promise<void>((resolve) => releases.push(resolve));
        active--;
        return i * 10;
      },
      options,
    );
    await vi.advanceTimersByTimeAsync(100);
    const beganBeforeRelease = [...begun];
    while (begun.length < 6 || releases.length > 0) {
      for (const release of releases.splice(0)) release();
      await vi.advanceTimersByTimeAsync(100);
    }
    // Assess
    expect(beganBeforeRelease).toEqual(started);
    expect(highest).toBe(peak);
    await expect(outcome).resolves.toEqual([0, 10, 20, 30, 40, 50]);
  });
});

describe('fetchAll with patience, the waiting places taken', () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  it('a call past its patience takes the place the next finished waiter leaves', async () => {
    // Prepare: items 0-3 answer only when released; two slots, one waiting place, 100 ms patience.
    vi.useFakeTimers();
    const releases = new Map<number, () => void>();
    const begun: number[] = [];
    const outcome = fetchAll(
      [0, 1, 2, 3, 4],
      2,
      async (i) => {
        begun.push(i);
        if (i <= 3) await new Promise<void>((resolve) => releases.set(i, resolve));
        return i;
      },
      { patienceMs: 100, maxWaiting: 1 },
    );
    // Act + Assess: at 100 ms item 0 waits without its slot and item 2 takes it; item 1 is past
    // its patience too, but the one place is taken, so it keeps its slot.
    await vi.advanceTimersByTimeAsync(200);
    expect(begun).toEqual([0, 1, 2]);
    // Item 0 ends: item 1 takes its waiting place and gives its slot to item 3.
    releases.get(0)?.();
    await vi.advanceTimersByTimeAsync(0);
    expect(begun).toEqual([0, 1, 2, 3]);
    for (const i of [1, 2, 3]) releases.get(i)?.();
    await vi.advanceTimersByTimeAsync(200);
    for (const i of [1, 2, 3]) releases.get(i)?.();
    await expect(outcome).resolves.toEqual([0, 1, 2, 3, 4]);
  });
});

describe('inStartOrder', () => {
  const targets = ['a', 'b', 'c', 'd', 'e'].map((name) => ({ name }));
  it.each([
    { intent: 'no priority: list order', priority: undefined, expected: 'abcde' },
    {
      intent: 'highest first, ties in list order',
      priority: (name: string) => ({ a: 1, b: 5, c: 1, d: 9, e: 5 })[name] as number,
      expected: 'dbeac',
    },
    {
      intent: 'Infinity (never fetched) before any figure, ties in list order',
      priority: (name: string) =>
        ({ a: 10, b: Number.POSITIVE_INFINITY, c: 0, d: Number.POSITIVE_INFINITY, e: 20 })[name] as number,
      expected: 'bdeac',
    },
  ])('$intent', ({ priority, expected }) => {
    expect(
      inStartOrder(targets, priority)
        .map((t) => t.name)
        .join(''),
    ).toBe(expected);
  });
});

describe('createLatencyMemory', () => {
  it('puts never-fetched targets first, then the slowest, and forgets a slow run by halves', () => {
    // Prepare
    const memory = createLatencyMemory();
    // Act + Assess: each step is one run's latency for web-1.
    expect(memory.priority('web-1')).toBe(Number.POSITIVE_INFINITY);
    memory.record('web-1', 1200);
    memory.record('web-2', 15);
    expect({ 'web-1': memory.priority('web-1'), 'web-2': memory.priority('web-2') }).toEqual({
      'web-1': 1200,
      'web-2': 15,
    });
    memory.record('web-1', 20); // fast once: still remembered as slow-prone
    expect(memory.priority('web-1')).toBe(600);
    memory.record('web-1', 20);
    memory.record('web-1', 20);
    expect(memory.priority('web-1')).toBe(150);
    memory.record('web-1', 1300); // slow again: the latest figure wins
    expect(memory.priority('web-1')).toBe(1300);
  });

  it("makes the next run start last run's slow target first, whatever its place in the list", async () => {
    // Prepare: ten targets, the slow one last by name.
    const memory = createLatencyMemory();
    const names = Array.from({ length: 10 }, (_, i) => `t${i}`);
    const latency = (name: string) => (name === 't9' ? 1200 : 5);
    const run = async () => {
      const started: string[] = [];
      const targets = inStartOrder(
        names.map((name) => ({ name })),
        (name) => memory.priority(name),
      );
      await fetchAll(targets, 2, async ({ name }) => {
        started.push(name);
        memory.record(name, latency(name));
      });
      return started;
    };
    // Act
    const cold = await run();
    const warm = await run();
    // Assess
    expect(cold).toEqual(names);
    expect(warm).toEqual(['t9', ...names.slice(0, 9)]);
  });
});

describe('fetchAll with fetchStatusPage, two targets hanging', () => {
  // Hung requests are answered by nobody; they time out on the client side.
  const server = createServer((req, res) => {
    if (req.url !== '/hang') res.end(`report ${req.url}`);
  });
  let port = 0;

  beforeAll(async () => {
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    port = (server.address() as { port: number }).port;
  });

  afterAll(async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  });

  it('returns ok for the 18 others before the 2 hung ones time out', async () => {
    // Prepare: the hung targets come first, so they take two of the five slots from the start.
    const targets = Array.from({ length: 20 }, (_, i) => ({
      name: `t${i}`,
      url: `http://127.0.0.1:${port}/${i < 2 ? 'hang' : `ok/${i}`}`,
      timeoutMs: i < 2 ? 1500 : 5000,
      allowLoopback: true,
    }));
    const completed: string[] = [];
    // Act
    const results = await fetchAll(targets, 5, async (t): Promise<FetchResult> => {
      const result = await fetchStatusPage(t);
      completed.push(t.name);
      return result;
    });
    // Assess
    expect(results.map((r) => (r.ok ? r.body : r.reason))).toEqual([
      'timeout',
      'timeout',
      ...Array.from({ length: 18 }, (_, i) => `report /ok/${i + 2}`),
    ]);
    expect(completed.slice(18).sort()).toEqual(['t0', 't1']);
  });
});
