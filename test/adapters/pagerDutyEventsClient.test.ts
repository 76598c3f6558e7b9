import { createServer } from 'node:net';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createPagerDutySender } from '../../src/adapters/pagerDutyEventsClient.ts';
import type { PagerDutyEvent } from '../../src/core/pagerduty/events.ts';
import { PagerDutyDeliveryError } from '../../src/forwarder/ports.ts';
import { type PagerDutyStandIn, startPagerDutyStandIn } from '../support/pagerDutyStandIn.ts';

const EVENT: PagerDutyEvent = {
  routing_key: 'R0UT1NGKEY0000000000000000000000',
  event_action: 'trigger',
  dedup_key: '3f2a9c0d1e2b4a5c',
  client: 'httpd-status-alerts',
  payload: {
    summary: '[FIRING warning] web-1: closing-pileup (23 >= 20)',
    source: 'web-1',
    severity: 'warning',
    component: 'web-1',
    class: 'closing-pileup',
    custom_details: { value: 23 },
  },
};

/** A loopback port with nothing listening on it. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

describe('createPagerDutySender against a loopback Events API', () => {
  let api: PagerDutyStandIn;
  const sleeps: number[] = [];
  const sleep = async (ms: number) => {
    sleeps.push(ms);
  };
  beforeAll(async () => {
    api = await startPagerDutyStandIn();
  });
  afterAll(async () => {
    await api.stop();
  });
  beforeEach(() => {
    api.requests.length = 0;
    sleeps.length = 0;
  });

  it('posts the event as JSON once when PagerDuty answers 202', async () => {
    // Act
    await createPagerDutySender({ url: api.url, sleep }).send(EVENT);

    // Assess
    expect(api.requests).toHaveLength(1);
    expect(api.requests[0]?.method).toBe('POST');
    expect(api.requests[0]?.path).toBe('/v2/enqueue');
    expect(api.requests[0]?.headers['content-type']).toBe('application/json');
    expect(api.requests[0]?.body).toEqual(EVENT);
    expect(sleeps).toEqual([]);
  });

  it.each([
    { case: '429 twice', answers: [{ status: 429 }, { status: 429 }], sleeps: [500, 1000] },
    { case: '500, 502, 503', answers: [{ status: 500 }, { status: 502 }, { status: 503 }], sleeps: [500, 1000, 2000] },
    {
      case: "429 with PagerDuty's Retry-After of 3 s",
      answers: [{ status: 429, headers: { 'retry-after': '3' } }],
      sleeps: [3000],
    },
    {
      case: 'a Retry-After past the cap',
      answers: [{ status: 429, headers: { 'retry-after': '120' } }],
      sleeps: [8000],
    },
  ])('retries $case with backoff, then delivers', async ({ answers, sleeps: expected }) => {
    // Prepare
    api.script(...answers);

    // Act
    await createPagerDutySender({ url: api.url, sleep }).send(EVENT);

    // Assess: the same event each time, so PagerDuty sees one dedup_key.
    expect(api.requests).toHaveLength(answers.length + 1);
    expect(new Set(api.requests.map((r) => JSON.stringify(r.body)))).toEqual(new Set([JSON.stringify(EVENT)]));
    expect(sleeps).toEqual(expected);
  });

  it('fails after its attempts when the 5xx persists, naming the event and the answer', async () => {
    // Prepare
    api.script(...Array.from({ length: 4 }, () => ({ status: 503, body: 'upstream unavailable' })));

    // Act
    const sending = createPagerDutySender({ url: api.url, sleep }).send(EVENT);

    // Assess
    await expect(sending).rejects.toThrow(
      new PagerDutyDeliveryError(EVENT, 4, 'HTTP 503 "upstream unavailable" (20 characters)', 503),
    );
    await expect(sending).rejects.toMatchObject({ name: 'PagerDutyDeliveryError', status: 503 });
    expect(api.requests).toHaveLength(4);
    expect(sleeps).toEqual([500, 1000, 2000]);
  });

  it('does not retry an event PagerDuty rejects as invalid (400), and never shows the routing key', async () => {
    // Prepare
    api.script({ status: 400, body: '{"status":"invalid event","message":"Event object is invalid"}' });

    // Act
    const error = (await createPagerDutySender({ url: api.url, sleep })
      .send(EVENT)
      .then(() => new Error('no error'))
      .catch((e: unknown) => e)) as Error;

    // Assess
    expect(error.message).toBe(
      'expected PagerDuty to accept trigger 3f2a9c0d1e2b4a5c, found HTTP 400 "{\\"status\\":\\"invalid event\\",\\"message\\":\\"Event object is invalid\\"}" (62 characters) after 1 attempt(s)',
    );
    expect(error.message).not.toContain(EVENT.routing_key);
    expect(api.requests).toHaveLength(1);
    expect(sleeps).toEqual([]);
  });

  it('retries when nothing answers, then fails with no status', async () => {
    // Prepare
    const url = `http://127.0.0.1:${await closedPort()}/v2/enqueue`;

    // Act
    const sending = createPagerDutySender({ url, sleep, maxAttempts: 3, backoffMs: 100 }).send(EVENT);

    // Assess
    await expect(sending).rejects.toMatchObject({
      name: 'PagerDutyDeliveryError',
      status: null,
      message:
        'expected PagerDuty to accept trigger 3f2a9c0d1e2b4a5c, found fetch failed (ECONNREFUSED) after 3 attempt(s)',
    });
    expect(sleeps).toEqual([100, 200]);
  });
});
