import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import {
  addToGroup,
  decideGroup,
  type GroupMember,
  type GroupState,
  groupRefOf,
  markPaged,
  pagedOf,
  settle,
} from '../../../src/core/alerts/group.ts';
import type { GroupRef, Notification } from '../../../src/core/alerts/types.ts';
import { MAX_GROUP_MEMBERS } from '../../../src/core/constants.ts';
import { partialMessage } from '../../support/messages.ts';

const T0 = Date.parse('2026-11-22T12:00:00Z');
const at = (minutes: number) => new Date(T0 + minutes * 60_000).toISOString();
const time = (minutes: number) => new Date(T0 + minutes * 60_000);
const INTERVAL_MS = 5 * 60_000;
const REPEAT_MS = 4 * 3_600_000;
const REF: GroupRef = { key: '{"rule":"idle-slots-low"}', labels: { rule: 'idle-slots-low' }, intervalMs: INTERVAL_MS };

const member = (target: string, over: Partial<GroupMember> = {}): GroupMember => ({
  fingerprint: `fp-${target}`,
  target,
  rule: 'idle-slots-low',
  severity: 'critical',
  status: 'firing',
  at: at(0),
  sentStatus: null,
  metric: 'slots_idle',
  op: '<',
  value: 2,
  threshold: 5,
  firedAt: at(0),
  resolvedAt: null,
  ...over,
});

const group = (members: GroupMember[], lastSentAt: number | null = null): GroupState => ({
  key: REF.key,
  labels: REF.labels,
  intervalMs: INTERVAL_MS,
  lastSentAt: lastSentAt === null ? null : at(lastSentAt),
  members: Object.fromEntries(members.map((m) => [m.fingerprint, m])),
  latest: null,
});

const page = (target: string, status: 'firing' | 'resolved', minute: number): Notification => ({
  fingerprint: `fp-${target}`,
  status,
  reason: status === 'resolved' ? 'resolved' : 'first',
  target,
  rule: 'idle-slots-low',
  severity: 'critical',
  value: status === 'firing' ? 2 : 9,
  threshold: 5,
  subject: `[${status.toUpperCase()} critical] ${target}: idle-slots-low`,
  message: 'text',
  payload: partialMessage({
    metric: 'slots_idle',
    op: '<',
    firedAt: at(0),
    resolvedAt: status === 'resolved' ? at(minute) : null,
    evaluatedAt: at(minute),
  }),
  labels: {},
  group: REF,
});
const latest = (n: Notification) => ({
  fingerprint: n.fingerprint,
  status: n.status,
  subject: n.subject,
  message: n.message,
  payload: n.payload,
});

describe('groupRefOf', () => {
  const alert = { rule: 'idle-slots-low', severity: 'critical' as const, target: 'web-1', labels: { cluster: 'a' } };
  it.each([
    ['by rule (the default)', ['rule'], '{"rule":"idle-slots-low"}'],
    ['by rule and a label', ['rule', 'labels.cluster'], '{"rule":"idle-slots-low","labels.cluster":"a"}'],
    ['a label the target lacks groups as empty', ['labels.zone'], '{"labels.zone":""}'],
    ['by target: every rule of a target together', ['target'], '{"target":"web-1"}'],
    ['by severity', ['severity'], '{"severity":"critical"}'],
  ])('%s', (_name, groupBy, key) => {
    expect(groupRefOf(groupBy, alert, INTERVAL_MS)).toEqual({ key, labels: JSON.parse(key), intervalMs: INTERVAL_MS });
  });

  it('groupBy [] pages each alert on its own', () => {
    expect(groupRefOf([], alert, INTERVAL_MS)).toBeNull();
  });
});

describe('decideGroup (time stepped, group interval 5m, repeat 4h)', () => {
  it.each([
    // intent: a new incident pages at once (group_wait 0)
    ['first: one new firing alert, nothing sent', group([member('web-1')]), 0, 'first'],
    ['first: two arrive in the same run', group([member('web-1'), member('web-2')]), 0, 'first'],
    // intent: alerts joining a standing page wait for the group interval
    [
      'none: a joiner one minute after the page',
      group([member('web-1', { sentStatus: 'firing' }), member('web-2', { at: at(1) })], 0),
      1,
      'none',
    ],
    [
      'none: a joiner just under the interval',
      group([member('web-1', { sentStatus: 'firing' }), member('web-2', { at: at(1) })], 0),
      4.99,
      'none',
    ],
    [
      'update: the interval has passed since the page',
      group([member('web-1', { sentStatus: 'firing' }), member('web-2', { at: at(1) })], 0),
      5,
      'update',
    ],
    // intent: resolves are grouped the same way
    [
      'none: a partial resolve within the interval',
      group(
        [member('web-1', { sentStatus: 'firing' }), member('web-2', { sentStatus: 'firing', status: 'resolved' })],
        3,
      ),
      6,
      'none',
    ],
    [
      'update: a partial resolve once the interval passed',
      group(
        [member('web-1', { sentStatus: 'firing' }), member('web-2', { sentStatus: 'firing', status: 'resolved' })],
        3,
      ),
      8,
      'update',
    ],
    [
      'resolved: every alert resolved, interval passed',
      group(
        [
          member('web-1', { sentStatus: 'firing', status: 'resolved' }),
          member('web-2', { sentStatus: 'firing', status: 'resolved' }),
        ],
        3,
      ),
      8,
      'resolved',
    ],
    [
      'none: an alert that resolved before any page named it is not paged',
      group([member('web-1', { status: 'resolved' })]),
      1,
      'none',
    ],
    // intent: a standing page is repeated after the repeat interval, not every run
    ['none: nothing changed', group([member('web-1', { sentStatus: 'firing' })], 0), 60, 'none'],
    [
      'repeat: repeat interval since the last page',
      group([member('web-1', { sentStatus: 'firing' })], 0),
      240,
      'repeat',
    ],
    [
      'first: after the group resolved and was paged, a new firing alert is a new incident',
      group([member('web-3', { at: at(30) })], 20),
      30,
      'first',
    ],
  ])('%s', (_name, state, minute, reason) => {
    expect(decideGroup(state, time(minute), REPEAT_MS)).toBe(reason);
  });
});

describe('addToGroup', () => {
  it('creates the group with its first alert, not yet named by a page', () => {
    const n = page('web-1', 'firing', 0);
    const g = addToGroup(null, REF, n, latest(n), time(0), 10);
    expect(g?.members['fp-web-1']).toEqual(member('web-1'));
    expect(g?.latest?.fingerprint).toBe('fp-web-1');
  });

  it('handing the same page over again changes nothing (a replayed claim)', () => {
    const n = page('web-1', 'firing', 0);
    const once = addToGroup(null, REF, n, latest(n), time(0), 10);
    expect(addToGroup(once, REF, n, latest(n), time(1), 10)).toEqual(once);
  });

  it('an older page arriving late does not undo a newer one', () => {
    const resolved = page('web-1', 'resolved', 5);
    const g = addToGroup(
      group([member('web-1', { sentStatus: 'firing' })], 0),
      REF,
      resolved,
      latest(resolved),
      time(5),
      10,
    );
    const stale = page('web-1', 'firing', 2);
    expect(addToGroup(g, REF, stale, latest(stale), time(6), 10)?.members['fp-web-1']?.status).toBe('resolved');
  });

  it('a resolve for an alert the group does not hold is owed (its firing went out)', () => {
    const n = page('web-9', 'resolved', 5);
    expect(addToGroup(null, REF, n, latest(n), time(5), 10)?.members['fp-web-9']?.sentStatus).toBe('firing');
  });

  it('an alert that fires and resolves before any page named it owes nothing', () => {
    const fired = page('web-1', 'firing', 0);
    const resolved = page('web-1', 'resolved', 1);
    const g = addToGroup(null, REF, fired, latest(fired), time(0), 10);
    const after = addToGroup(g, REF, resolved, latest(resolved), time(1), 10) as GroupState;
    expect(after.members['fp-web-1']?.sentStatus).toBeNull();
    expect(decideGroup(after, time(10), REPEAT_MS)).toBe('none');
  });

  it('a full group refuses a new alert but still takes news of one it holds', () => {
    const full = group([member('web-1', { sentStatus: 'firing' })]);
    const joiner = page('web-2', 'firing', 1);
    expect(addToGroup(full, REF, joiner, latest(joiner), time(1), 1)).toBeNull();
    const resolve = page('web-1', 'resolved', 2);
    expect(addToGroup(full, REF, resolve, latest(resolve), time(2), 1)?.members['fp-web-1']?.status).toBe('resolved');
  });
});

describe('pagedOf and markPaged', () => {
  const state = group(
    [
      member('web-1', { sentStatus: 'firing' }),
      member('web-2'),
      member('web-3', { sentStatus: 'firing', status: 'resolved' }),
      member('web-4', { status: 'resolved' }),
    ],
    0,
  );

  it('a page names every firing alert and every owed resolve', () => {
    expect(pagedOf(state)).toEqual({ 'fp-web-1': 'firing', 'fp-web-2': 'firing', 'fp-web-3': 'resolved' });
  });

  it('once accepted: named alerts carry what the page said', () => {
    const after = markPaged(state, pagedOf(state), at(5));
    expect(Object.fromEntries(Object.values(after.members).map((m) => [m.target, m.sentStatus]))).toEqual({
      'web-1': 'firing',
      'web-2': 'firing',
      'web-3': 'resolved',
      'web-4': null,
    });
    expect(after.lastSentAt).toBe(at(5));
  });

  it.each([
    [
      'resolved alerts stay as tombstones against replays for 15 minutes',
      14.99,
      ['fp-web-1', 'fp-web-2', 'fp-web-3', 'fp-web-4'],
    ],
    ['then leave', 15, ['fp-web-1', 'fp-web-2']],
  ])('settle: %s', (_name, minute, kept) => {
    const after = markPaged(state, pagedOf(state), at(5));
    expect(Object.keys(settle(after, time(minute)).members)).toEqual(kept);
  });

  it('a replayed resolve of a tombstone changes nothing', () => {
    const after = settle(markPaged(state, pagedOf(state), at(5)), time(6));
    const replay = page('web-3', 'resolved', 0);
    const again = addToGroup(after, REF, replay, latest(replay), time(6), 10) as GroupState;
    expect(decideGroup(again, time(20), REPEAT_MS)).toBe('none');
  });

  it('an alert that resolved while its page was in flight still owes that resolve', () => {
    const moved = {
      ...state,
      members: { ...state.members, 'fp-web-2': member('web-2', { status: 'resolved', at: at(4) }) },
    };
    const after = markPaged(moved, { 'fp-web-2': 'firing' }, at(5));
    expect(after.members['fp-web-2']).toMatchObject({ status: 'resolved', sentStatus: 'firing' });
    expect(decideGroup(after, time(10), REPEAT_MS)).toBe('update');
  });
});

describe('MAX_GROUP_MEMBERS', () => {
  it('a full group of the longest names, its newest page and a claim naming every alert fit a DynamoDB item', () => {
    const ref = {
      key: JSON.stringify({ rule: 'r'.repeat(64) }),
      labels: { rule: 'r'.repeat(64) },
      intervalMs: 300_000,
    };
    let g: GroupState | null = null;
    for (let i = 0; i < MAX_GROUP_MEMBERS; i++) {
      const n: Notification = {
        ...page(`t${i}`.padEnd(63, 'x'), 'firing', 0),
        fingerprint: i.toString(16).padStart(16, '0'),
        rule: 'r'.repeat(64),
        value: -1.2345678901234568e-300,
        threshold: -1.2345678901234568e-300,
        payload: partialMessage({
          metric: 'ssl_cache_miss_ratio',
          op: '>=',
          firedAt: at(0),
          resolvedAt: at(0),
          evaluatedAt: at(0),
        }),
      };
      g = addToGroup(g, ref, n, latest(n), time(0), MAX_GROUP_MEMBERS);
    }
    const newest = {
      fingerprint: 'f'.repeat(16),
      status: 'firing',
      subject: 's'.repeat(99),
      message: 'm'.repeat(8000),
      payload: { p: 'p'.repeat(16_000) },
    };
    const claim = {
      token: randomUUID(),
      expiresAtMs: T0,
      reason: 'update',
      at: at(0),
      paged: pagedOf(g as GroupState),
    };
    const item = JSON.stringify({
      pk: `meta#group#${'0'.repeat(32)}`,
      value: { group: { ...g, latest: newest }, claim },
      version: 1,
    });
    expect(Object.keys((g as GroupState).members)).toHaveLength(MAX_GROUP_MEMBERS);
    expect(item.length).toBeLessThan(380_000); // DynamoDB: 400 KB, names and values as UTF-8; JSON only adds to it
  });
});
