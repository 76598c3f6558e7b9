/**
 * The configuration alert through the claim machine (memory table): one alert whatever its
 * problems (a changed set pages an update), resolved once valid again; its writes and refused
 * pages in the run's ledger.
 */
import { describe, expect, it } from 'vitest';
import { createMemoryStateTable } from '../../../src/adapters/memoryStateStore.ts';
import { CONFIG_ALERT_KEY, commitConfigAlert } from '../../../src/app/config/configAlert.ts';
import type { CycleDeps, PageRouter, StateTable } from '../../../src/app/ports.ts';
import { startRun } from '../../../src/app/runContext.ts';
import { messageFields } from '../../support/messages.ts';

const T0 = Date.parse('2026-11-22T12:00:00Z');
const at = (minute: number) => new Date(T0 + minute * 60_000);

function deps(table: StateTable): CycleDeps {
  return {
    config: { loadRaw: async () => ({ targets: {}, rules: {}, silences: {} }), getSecret: async () => '' },
    secretScope: { prefix: '/p', sharedSecretParameters: [] },
    table,
    notifier: { publish: async () => {} },
    fetch: async () => {
      throw new Error('the configuration alert fetches nothing');
    },
    metrics: { target: () => {}, run: () => {} },
    logger: { info: () => {}, warn: () => {}, error: () => {} },
    concurrency: 1,
    evaluate: {},
    claimLeaseMs: 60_000,
    warm: new Map(),
    warmConfig: { applied: null },
  };
}

describe('commitConfigAlert', () => {
  it('pages once per problem set, resolves when valid; the ledger counts its writes', async () => {
    // Prepare
    const table = createMemoryStateTable();
    const subjects: string[] = [];
    const router: PageRouter = {
      publish: async (page) => {
        subjects.push(page.subject);
        return null;
      },
    };
    const steps: Array<[number, string[] | null]> = [
      [0, ['/p/targets/a0 (field url): expected a string, found 42']],
      [1, ['/p/targets/a0 (field url): expected a string, found 42']],
      [2, null],
    ];
    // Act: minute -> (pages of that run, its writes)
    const runs: unknown[] = [];
    for (const [minute, problems] of steps) {
      const ctx = startRun(deps(table), at(minute));
      const before = subjects.length;
      await commitConfigAlert(ctx, router, problems, 1);
      runs.push([minute, subjects.slice(before), ctx.ledger.writes, ctx.ledger.publishFailures.length]);
    }
    // Assess: a page is a claim and a commit (2 writes); nothing changed, nothing written
    expect(runs).toEqual([
      [0, ['[FIRING warning] httpd-status-alerts: invalid configuration'], 2, 0],
      [1, [], 0, 0],
      [2, ['[RESOLVED warning] httpd-status-alerts: configuration valid again'], 2, 0],
    ]);
    expect((await table.loadMany([CONFIG_ALERT_KEY])).get(CONFIG_ALERT_KEY)?.claim).toBeNull();
  });

  it('a refused update is paged again by the next run: the record keeps the problem set its last page listed', async () => {
    const table = createMemoryStateTable();
    const pages: string[] = [];
    const router = (refuse: boolean): PageRouter => ({
      publish: async (page) => {
        if (refuse) throw new Error('SNS is down');
        pages.push(`${page.status} ${page.fingerprint} ${String(messageFields(page.payload).problemCount)}`);
        return null;
      },
    });
    const steps: Array<[number, string[] | null, boolean]> = [
      [0, ['a', 'b'], false],
      [1, ['b'], true], // the update refused
      [2, ['b'], false], // sent now
      [3, ['b'], false],
      [4, null, false],
    ];
    for (const [minute, problems, refuse] of steps)
      await commitConfigAlert(startRun(deps(table), at(minute)), router(refuse), problems, 1);
    expect(pages).toEqual(['firing configuration 2', 'firing configuration 1', 'resolved configuration undefined']);
  });

  it('a refused page: in the ledger, not marked sent (the next run pages it)', async () => {
    const table = createMemoryStateTable();
    const refused = new Error('SNS is down');
    const ctx = startRun(deps(table), at(0));
    await commitConfigAlert(ctx, { publish: async () => Promise.reject(refused) }, ['a problem'], null);
    const subjects: string[] = [];
    const next = startRun(deps(table), at(1));
    await commitConfigAlert(
      next,
      {
        publish: async (p) => {
          subjects.push(p.subject);
          return null;
        },
      },
      ['a problem'],
      null,
    );
    expect([ctx.ledger.publishFailures, subjects]).toEqual([
      [refused],
      ['[FIRING warning] httpd-status-alerts: invalid configuration'],
    ]);
  });
});
