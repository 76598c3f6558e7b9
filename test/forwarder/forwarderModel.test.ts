/**
 * The forwarder model's own judgement (test/support/forwarderModel.ts): what it expects of
 * PagerDuty must be what the monitor's pages say, also for a group past its seats per alert.
 */
import { describe, expect, it } from 'vitest';
import { ForwarderModel } from '../support/forwarderModel.ts';

const T0 = Date.parse('2026-11-22T12:00:00Z');
const GROUP_ID = '0123456789abcdef0123456789abcdef';

/** A group page of `firing` firing alerts, then `resolved` resolved ones, in one part. */
function groupPage(firing: number, resolved: number, order: number): string {
  const alert = (i: number, status: 'firing' | 'resolved') => ({
    version: 1,
    fingerprint: `fp-${i}`,
    status,
    target: `web-${String(i).padStart(4, '0')}`,
    rule: 'closing-pileup',
    severity: 'warning',
    firedAt: new Date(T0 + i * 1_000).toISOString(),
  });
  const alerts = [
    ...Array.from({ length: firing }, (_, i) => alert(i, 'firing')),
    ...Array.from({ length: resolved }, (_, i) => alert(firing + i, 'resolved')),
  ];
  return JSON.stringify({
    version: 1,
    kind: 'group',
    status: firing > 0 ? 'firing' : 'resolved',
    fingerprint: `group-${GROUP_ID}`,
    group: { id: GROUP_ID, key: '{}', labels: {} },
    severity: 'warning',
    rule: 'closing-pileup',
    counts: { firing, resolved },
    part: { index: 1, count: 1 },
    alerts,
    order,
  });
}

describe('ForwarderModel', () => {
  it('per alert, a group past its 120 seats: the model expects what the forwarder promises, not an incident per alert', async () => {
    // Prepare: 130 alerts fire (120 take a seat, 10 share the overflow); then the last 5 recover.
    const model = new ForwarderModel('alert');
    model.publishedMessage(groupPage(130, 0, T0));
    await model.settle(T0);
    model.publishedMessage(groupPage(125, 5, T0 + 60_000));

    // Act
    await model.settle(T0 + 60_000);

    // Assess: the 120 seat holders and the overflow (5 alerts) open; nothing the model reports.
    expect(model.check()).toEqual([]);
    const open = [...model.incidents].filter(([, i]) => i.status === 'triggered').map(([key]) => key);
    expect(open.sort()).toEqual([...Array.from({ length: 120 }, (_, i) => `fp-${i}`), `group-${GROUP_ID}-more`].sort());
  });
});
