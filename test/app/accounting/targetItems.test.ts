/**
 * Claim, publish, commit on the memory table (DynamoDB's conditional semantics): what the table
 * holds and what was published after each outcome of each step.
 */
import { describe, expect, it } from 'vitest';
import { createMemoryStateTable } from '../../../src/adapters/memoryStateStore.ts';
import { RELEASED_AT_MS } from '../../../src/app/accounting/claim.ts';
import {
  commitTarget,
  MAX_STORED_MESSAGE_BYTES,
  MAX_STORED_PAYLOAD_BYTES,
  settleTarget,
  storedPage,
  type TargetCommit,
} from '../../../src/app/accounting/targetItems.ts';
import type { PageRouter, StoredState } from '../../../src/app/ports.ts';
import type { AlertRecord, Notification, TargetState } from '../../../src/core/alerts/types.ts';
import { partialMessage } from '../../support/messages.ts';

const NOW = new Date('2026-11-22T12:00:00Z');
const KEY = 'target#web-1';
const LEASE = { token: 'run-b', leaseMs: 60_000 };

const record = (sent: 'firing' | null): AlertRecord => ({
  fingerprint: 'fp',
  target: 'web-1',
  rule: 'closing',
  severity: 'warning',
  state: 'firing',
  activeAt: NOW.toISOString(),
  firedAt: NOW.toISOString(),
  resolvedAt: null,
  lastSentAt: sent === null ? null : NOW.toISOString(),
  lastSentStatus: sent,
  value: 23,
  threshold: 20,
});
const state = (alerts: AlertRecord[]): TargetState => ({
  target: 'web-1',
  evaluatedAt: NOW.toISOString(),
  consecutiveFailures: 0,
  counters: null,
  alerts: Object.fromEntries(alerts.map((a) => [a.fingerprint, a])),
});
const page: Notification = {
  fingerprint: 'fp',
  status: 'firing',
  reason: 'first',
  target: 'web-1',
  rule: 'closing',
  severity: 'warning',
  value: 23,
  threshold: 20,
  subject: '[FIRING warning] web-1: closing (23 >= 20)',
  message: 'text',
  payload: partialMessage({ version: 1 }),
  labels: {},
};

/** The usual commit: a new firing alert and its page, written. */
const firingCommit = (loaded: StoredState | null): TargetCommit => ({
  key: KEY,
  loaded,
  next: state([record('firing')]),
  notifications: [page],
  deleteAfter: false,
  write: true,
});

/** Where the claimed pages go: straight to SNS, none grouped (null: no group holds it). */
function notifier(refuse: boolean): PageRouter & { sent: string[] } {
  const sent: string[] = [];
  return {
    sent,
    publish: async (n) => {
      if (refuse) throw new Error('SNS is down');
      sent.push(n.subject);
      return null;
    },
  };
}

describe('commitTarget', () => {
  it.each<{ case: string; snsRefuses: boolean; sent: number; failed: number; lastSentStatus: 'firing' | null }>([
    {
      case: 'SNS accepts: marked sent, claim cleared',
      snsRefuses: false,
      sent: 1,
      failed: 0,
      lastSentStatus: 'firing',
    },
    {
      case: 'SNS refuses: state advanced, page unsent (the next run sends it), claim cleared',
      snsRefuses: true,
      sent: 0,
      failed: 1,
      lastSentStatus: null,
    },
  ])('$case', async ({ snsRefuses, sent, failed, lastSentStatus }) => {
    const table = createMemoryStateTable();
    const sns = notifier(snsRefuses);
    const outcome = await commitTarget(table, sns, firingCommit(null), NOW, LEASE);
    const item = (await table.loadMany([KEY])).get(KEY) as StoredState;
    expect({
      sent: outcome.sent.length,
      failed: outcome.failed.length,
      writes: outcome.writes,
      status: outcome.status,
    }).toEqual({ sent, failed, writes: 2, status: 'committed' });
    expect({ version: item.version, claim: item.claim, lastSentStatus: item.state.alerts.fp?.lastSentStatus }).toEqual({
      version: 2,
      claim: null,
      lastSentStatus,
    });
  });

  it('a run that read an older version claims nothing and publishes nothing', async () => {
    const table = createMemoryStateTable();
    await table.put(KEY, { state: state([]), claim: null }, null, NOW);
    await table.put(KEY, { state: state([]), claim: null }, 1, NOW); // another run moved it to 2
    const sns = notifier(false);
    const stale: StoredState = { version: 1, state: state([]), claim: null };
    const outcome = await commitTarget(table, sns, firingCommit(stale), NOW, LEASE);
    expect([outcome.status, sns.sent]).toEqual(['raced', []]);
  });

  it.each([
    { case: 'the claim created the item: called after the claim, before the page', exists: false, writes: 3 },
    { case: 'the item existed: not called', exists: true, writes: 2 },
  ])('onCreated, $case', async ({ exists, writes }) => {
    const table = createMemoryStateTable();
    if (exists) await table.put(KEY, { state: state([]), claim: null }, null, NOW);
    const loaded = (await table.loadMany([KEY])).get(KEY) ?? null;
    const sns = notifier(false);
    const seen: string[] = [];
    const outcome = await commitTarget(
      table,
      sns,
      {
        ...firingCommit(loaded),
        onCreated: async () => {
          const item = (await table.loadMany([KEY])).get(KEY);
          seen.push(`claimed ${item?.claim != null}, pages sent ${sns.sent.length}`);
          return 1;
        },
      },
      NOW,
      LEASE,
    );
    expect({ seen, writes: outcome.writes, sent: sns.sent.length }).toEqual({
      seen: exists ? [] : ['claimed true, pages sent 0'],
      writes,
      sent: 1,
    });
  });

  it('onCreated failing: no page goes out, the claim stays for a replay', async () => {
    const table = createMemoryStateTable();
    const sns = notifier(false);
    const failing = commitTarget(
      table,
      sns,
      {
        ...firingCommit(null),
        onCreated: async () => {
          throw new Error('throughput exceeded');
        },
      },
      NOW,
      LEASE,
    );
    await expect(failing).rejects.toThrow('throughput exceeded');
    const item = (await table.loadMany([KEY])).get(KEY) as StoredState;
    expect({ sent: sns.sent, token: item.claim?.token, pages: item.claim?.pages.length }).toEqual({
      sent: [],
      token: 'run-b',
      pages: 1,
    });
  });

  it('a removed target: resolves sent, then the item deleted', async () => {
    const table = createMemoryStateTable();
    await table.put(KEY, { state: state([record('firing')]), claim: null }, null, NOW);
    const loaded = (await table.loadMany([KEY])).get(KEY) as StoredState;
    const resolve = { ...page, status: 'resolved' as const, reason: 'resolved' as const, subject: 'resolved' };
    const outcome = await commitTarget(
      table,
      notifier(false),
      { key: KEY, loaded, next: state([]), notifications: [resolve], deleteAfter: true, write: true },
      NOW,
      LEASE,
    );
    expect([outcome.sent.length, outcome.status, (await table.loadMany([KEY])).size]).toEqual([1, 'committed', 0]);
  });
});

describe('settleTarget', () => {
  async function crashedAfterClaim(expiresAtMs: number) {
    const table = createMemoryStateTable();
    const claim = {
      token: 'run-a',
      expiresAtMs,
      deleteAfter: false,
      pages: [{ notification: page, record: record('firing') }],
    };
    await table.put(KEY, { state: state([record(null)]), claim }, null, NOW);
    return { table, loaded: (await table.loadMany([KEY])).get(KEY) as StoredState & { claim: typeof claim } };
  }

  it.each([
    ['a claim still in force: left to its run', NOW.getTime() + 1, false, [], 'held', 'run-a', null],
    [
      'an expired claim: its page sent again, then committed',
      NOW.getTime() - 1,
      false,
      [page.subject],
      'committed',
      null,
      'firing',
    ],
    [
      'an expired claim whose page SNS refuses: kept, released for the next run',
      NOW.getTime() - 1,
      true,
      [],
      'inDoubt',
      'run-b',
      null,
    ],
  ] as const)('%s', async (_, expiresAtMs, refuse, published, status, claimToken, lastSentStatus) => {
    const { table, loaded } = await crashedAfterClaim(expiresAtMs);
    const sns = notifier(refuse);
    const outcome = await settleTarget(table, sns, KEY, loaded, NOW, LEASE);
    const item = (await table.loadMany([KEY])).get(KEY) as StoredState;
    expect([sns.sent, outcome.status, item.claim?.token ?? null, item.state.alerts.fp?.lastSentStatus]).toEqual([
      published,
      status,
      claimToken,
      lastSentStatus,
    ]);
    if (refuse) expect(item.claim?.expiresAtMs).toBe(RELEASED_AT_MS);
  });
});

describe('storedPage: what a claim and a group item keep of a page, bounded in bytes', () => {
  const base = { ...page, message: 'ok', payload: partialMessage({ version: 1, note: 'short' }) };
  it.each<[string, string, number]>([
    ['ASCII within the bound, kept whole', 'a'.repeat(MAX_STORED_MESSAGE_BYTES), MAX_STORED_MESSAGE_BYTES],
    ['8,000 two-byte characters (16,000 bytes), cut to the bound', 'é'.repeat(8000), MAX_STORED_MESSAGE_BYTES],
    ['8,000 three-byte characters, cut to the bound', '€'.repeat(8000), MAX_STORED_MESSAGE_BYTES],
  ])('the message: %s', (_, message, maxBytes) => {
    const kept = storedPage({ ...base, message });
    expect(Buffer.byteLength(kept.message)).toBeLessThanOrEqual(maxBytes);
    expect(kept.message === message || kept.message.endsWith('\n...')).toBe(true);
  });

  it.each<[string, string, boolean]>([
    ['an ASCII payload within the bound: kept', 'p'.repeat(MAX_STORED_PAYLOAD_BYTES - 100), true],
    [
      'the same number of non-ASCII characters (twice the bytes): reduced to its facts',
      'é'.repeat(MAX_STORED_PAYLOAD_BYTES - 100),
      false,
    ],
  ])('the payload: %s', (_, note, kept) => {
    const stored = storedPage({ ...base, payload: partialMessage({ version: 1, note }) });
    const json: Record<string, unknown> = stored.payload;
    expect(json.note === note).toBe(kept);
    expect(Buffer.byteLength(JSON.stringify(stored.payload))).toBeLessThanOrEqual(MAX_STORED_PAYLOAD_BYTES);
  });
});

describe('page order: a hybrid logical clock per alert, taken from the table at the claim', () => {
  /** Commit one page about `fp` at `at` on whatever the table holds; the orders published. */
  async function pageAt(table: ReturnType<typeof createMemoryStateTable>, at: Date, published: number[]) {
    const loaded = (await table.loadMany([KEY])).get(KEY) ?? null;
    const sns: PageRouter = {
      publish: async (n) => {
        published.push(n.payload.order as number);
        return null;
      },
    };
    const next = state([record('firing')]);
    await commitTarget(
      table,
      sns,
      { key: KEY, loaded, next, notifications: [page], deleteAfter: false, write: true },
      at,
      LEASE,
    );
  }

  it.each<[string, number[], number[]]>([
    // [ms after NOW of each page], the orders published
    ['the clock moving on: each page orders at its claim time', [0, 60_000, 120_000], [0, 60_000, 120_000]],
    ['a later claim by a container whose clock lags: one past the last', [60_000, 0, -5_000], [60_000, 60_001, 60_002]],
  ])('%s', async (_, offsets, expected) => {
    const table = createMemoryStateTable();
    const published: number[] = [];
    for (const ms of offsets) await pageAt(table, new Date(NOW.getTime() + ms), published);
    expect(published).toEqual(expected.map((ms) => NOW.getTime() + ms));
    expect((await table.loadMany([KEY])).get(KEY)?.state.alerts.fp?.order).toBe(published.at(-1));
  });

  it("a replay of a dead run's claim carries that claim's order (a duplicate, dropped by the forwarder)", async () => {
    const table = createMemoryStateTable();
    await commitTarget(table, { publish: async () => null }, firingCommit(null), NOW, LEASE);
    const first = (await table.loadMany([KEY])).get(KEY) as StoredState;
    // A second page claimed, its publish lost with the run (the claim stays, as a dead run leaves it).
    const later = new Date(NOW.getTime() + 60_000);
    // Why not awaited: the publish never returns, as in a run that died after its claim.
    void commitTarget(table, { publish: () => new Promise<null>(() => {}) }, firingCommit(first), later, LEASE);
    await new Promise((resolve) => setImmediate(resolve));
    const claimed = (await table.loadMany([KEY])).get(KEY) as StoredState;
    expect(claimed.claim?.pages[0]?.notification.payload.order).toBe(later.getTime());
    const replayed: number[] = [];
    await settleTarget(
      table,
      {
        publish: async (n) => {
          replayed.push(n.payload.order as number);
          return null;
        },
      },
      KEY,
      claimed,
      new Date(later.getTime() + 120_000),
      { token: 'run-c', leaseMs: 60_000 },
    );
    expect(replayed).toEqual([later.getTime()]);
  });
});
