import type { SNSEvent } from 'aws-lambda';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createPagerDutySender } from '../../src/adapters/pagerDutyEventsClient.ts';
import { EnvironmentError } from '../../src/lambda/environment.ts';
import { forwardToPagerDuty, readPagerDutyConfig } from '../../src/lambda/pagerDutyForwarder.ts';
import { type PagerDutyStandIn, startPagerDutyStandIn } from '../support/pagerDutyStandIn.ts';

const alert = (target: string, status: 'firing' | 'resolved') => ({
  version: 1,
  fingerprint: `fp-${target}`,
  status,
  target,
  rule: 'closing-pileup',
  severity: 'warning',
  metric: 'slots_closing',
  op: '>=',
  threshold: 20,
  value: 23,
});

const snsEvent = (...messages: unknown[]): SNSEvent =>
  ({ Records: messages.map((m) => ({ EventSource: 'aws:sns', Sns: { Message: JSON.stringify(m) } })) }) as SNSEvent;

describe('Function: readPagerDutyConfig', () => {
  it('fills the defaults around the parameter name', () => {
    expect(readPagerDutyConfig({ PAGERDUTY_ROUTING_KEY_PARAMETER: '/pagerduty/key' })).toEqual({
      routingKeyParameter: '/pagerduty/key',
      eventsUrl: 'https://events.pagerduty.com/v2/enqueue',
      routingKeyMaxAgeSeconds: 300,
    });
  });

  it('lists every problem at once', () => {
    // Act
    let error: unknown;
    try {
      readPagerDutyConfig({ PAGERDUTY_EVENTS_URL: 'ftp://events', ROUTING_KEY_MAX_AGE_SECONDS: 'soon' });
    } catch (e) {
      error = e;
    }
    // Assess
    expect(error).toBeInstanceOf(EnvironmentError);
    expect((error as EnvironmentError).problems).toEqual([
      'PAGERDUTY_ROUTING_KEY_PARAMETER expects the name of an SSM SecureString, found ""',
      'PAGERDUTY_EVENTS_URL expects an http(s) URL, found "ftp://events"',
      'ROUTING_KEY_MAX_AGE_SECONDS expects a whole number from 0 to 86400, found "soon"',
    ]);
  });
});

describe('Function: forwardToPagerDuty against a loopback Events API', () => {
  let api: PagerDutyStandIn;
  let keyReads = 0;
  const deps = () => ({
    routingKey: async () => {
      keyReads++;
      return 'KEY';
    },
    sender: createPagerDutySender({ url: api.url, sleep: async () => {} }),
  });
  beforeAll(async () => {
    api = await startPagerDutyStandIn();
  });
  afterAll(async () => {
    await api.stop();
  });
  beforeEach(() => {
    api.requests.length = 0;
    keyReads = 0;
  });

  it('sends the other alerts of a message when one is rejected, then fails naming the rejected one', async () => {
    // Prepare: a grouped message of three; PagerDuty rejects the second.
    api.script({ status: 202 }, { status: 400, body: 'invalid' });
    const event = snsEvent({
      alerts: [alert('web-1', 'firing'), alert('web-2', 'firing'), alert('web-3', 'resolved')],
    });

    // Act
    const forwarding = forwardToPagerDuty(event, deps());

    // Assess
    await expect(forwarding).rejects.toMatchObject({
      name: 'ForwardError',
      message:
        'expected every event to reach PagerDuty, found 1 failed: expected PagerDuty to accept trigger fp-web-2, found HTTP 400 "invalid" (7 characters) after 1 attempt(s)',
    });
    expect(
      api.requests.map((r) => [
        (r.body as { dedup_key: string }).dedup_key,
        (r.body as { event_action: string }).event_action,
      ]),
    ).toEqual([
      ['fp-web-1', 'trigger'],
      ['fp-web-2', 'trigger'],
      ['fp-web-3', 'resolve'],
    ]);
  });

  it('reads the routing key once per invocation, and not at all for an empty one', async () => {
    // Act
    const empty = await forwardToPagerDuty({ Records: [] }, deps());
    const two = await forwardToPagerDuty(snsEvent(alert('web-1', 'firing'), alert('web-2', 'resolved')), deps());

    // Assess
    expect({ empty, two, keyReads }).toEqual({ empty: { sent: 0 }, two: { sent: 2 }, keyReads: 1 });
    expect(api.requests.map((r) => (r.body as { routing_key: string }).routing_key)).toEqual(['KEY', 'KEY']);
  });
});
