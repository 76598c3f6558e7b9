import { BatchGetCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { createDynamoStateTable, type StateTable } from '../../src/adapters/dynamoStateStore.ts';
import type { AlertRecord, TargetState } from '../../src/core/alerts/types.ts';
import { type LocalDynamo, startDynalite } from '../support/emulators.ts';

const NOW = new Date('2026-11-22T12:00:00Z');

function alert(target: string, fingerprint: string): AlertRecord {
  return {
    fingerprint,
    target,
    rule: 'closing-pileup',
    severity: 'warning',
    state: 'firing',
    activeAt: '2026-11-22T11:55:00.000Z',
    firedAt: '2026-11-22T11:58:00.000Z',
    resolvedAt: null,
    lastSentAt: null,
    lastSentStatus: null,
    value: 23,
    threshold: 20,
  };
}

function state(target: string, alerts: AlertRecord[]): TargetState {
  return {
    target,
    evaluatedAt: NOW.toISOString(),
    consecutiveFailures: 0,
    counters: { totalAccesses: 10, uptimeSeconds: 5, sslRetrieveHits: 1, sslRetrieveMisses: 0 },
    alerts: Object.fromEntries(alerts.map((a) => [a.fingerprint, a])),
  };
}

describe('dynamoStateStore on dynalite', () => {
  let dynamo: LocalDynamo;
  let table: StateTable;
  beforeAll(async () => {
    dynamo = await startDynalite();
    await dynamo.createTable('state');
    table = createDynamoStateTable(dynamo.doc, 'state');
  });
  afterAll(async () => {
    await dynamo.stop();
  });

  it('reads 150 targets and their alerts in batches of 100 keys', async () => {
    for (let i = 0; i < 150; i++) {
      const a = alert(`web-${i}`, `fp-${i}`);
      expect(await table.putAlert(a, null, NOW)).toBe(true);
      expect(await table.putTarget(state(`web-${i}`, [a]), null, NOW)).toBe(true);
    }
    const send = vi.spyOn(dynamo.doc, 'send');
    const loaded = await table.loadMany([...Array.from({ length: 150 }, (_, i) => `web-${i}`), 'never-seen']);
    const batches = send.mock.calls.filter(([command]) => command instanceof BatchGetCommand).length;
    send.mockRestore();
    expect(batches).toBe(4); // 151 target keys, 150 alert keys
    expect(loaded.get('web-149')).toEqual({
      state: state('web-149', [alert('web-149', 'fp-149')]),
      targetVersion: 1,
      alertVersions: { 'fp-149': 1 },
    });
    expect(loaded.get('never-seen')).toEqual({ state: null, targetVersion: null, alertVersions: {} });
  });

  it('lets one run claim an alert; the other is refused until the lease ends', async () => {
    const a = alert('db-1', 'fp-claim');
    await table.putAlert(a, null, NOW);
    const first = await table.claimAlert('fp-claim', 1, 'run-a', NOW, 60_000);
    const second = await table.claimAlert('fp-claim', 1, 'run-b', NOW, 60_000);
    expect([first, second]).toEqual([2, null]);
    // The holder commits; a stale writer (version 1) loses.
    expect(await table.putAlert({ ...a, lastSentAt: NOW.toISOString() }, 2, NOW, 'run-a')).toBe(true);
    expect(await table.putAlert(a, 1, NOW)).toBe(false);
  });

  it('takes over an expired claim', async () => {
    const a = alert('db-2', 'fp-lease');
    await table.putAlert(a, null, NOW);
    expect(await table.claimAlert('fp-lease', 1, 'run-dead', NOW, 60_000)).toBe(2);
    const later = new Date(NOW.getTime() + 61_000);
    expect(await table.claimAlert('fp-lease', 2, 'run-next', later, 60_000)).toBe(3);
  });
});
