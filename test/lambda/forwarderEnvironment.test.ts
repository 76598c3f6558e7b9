import { describe, expect, it } from 'vitest';
import { EnvironmentError } from '../../src/lambda/environment.ts';
import { readPagerDutyConfig } from '../../src/lambda/forwarderEnvironment.ts';

/** The two variables the forwarder needs; every other one has a default. */
const VALID_FORWARDER_ENV = { PAGERDUTY_ROUTING_KEY_PARAMETER: '/pagerduty/key', STATE_TABLE: 'hsa-state' };

describe('readPagerDutyConfig', () => {
  it('fills the defaults around the parameter name and the table', () => {
    expect(readPagerDutyConfig(VALID_FORWARDER_ENV)).toEqual({
      routingKeyParameter: '/pagerduty/key',
      eventsUrl: 'https://events.pagerduty.com/v2/enqueue',
      routingKeyMaxAgeSeconds: 300,
      eventsPer: 'group',
      stateTable: 'hsa-state',
    });
  });

  it.each([
    { variable: 'PAGERDUTY_EVENTS_URL', value: 'http://127.0.0.1:8080/v2/enqueue', read: 'eventsUrl' },
    {
      variable: 'PAGERDUTY_EVENTS_URL',
      value: '',
      read: 'eventsUrl',
      expected: 'https://events.pagerduty.com/v2/enqueue',
    },
    { variable: 'ROUTING_KEY_MAX_AGE_SECONDS', value: '0', read: 'routingKeyMaxAgeSeconds', expected: 0 },
    { variable: 'ROUTING_KEY_MAX_AGE_SECONDS', value: '86400', read: 'routingKeyMaxAgeSeconds', expected: 86_400 },
    { variable: 'ROUTING_KEY_MAX_AGE_SECONDS', value: '', read: 'routingKeyMaxAgeSeconds', expected: 300 },
    { variable: 'PAGERDUTY_EVENTS_PER', value: 'alert', read: 'eventsPer' },
    { variable: 'PAGERDUTY_EVENTS_PER', value: '', read: 'eventsPer', expected: 'group' },
    { variable: 'STATE_TABLE', value: 'hsa_State.1', read: 'stateTable' },
  ] as const)('reads $variable=$value as $read', ({ variable, value, read, ...row }) => {
    const expected = 'expected' in row ? row.expected : value;
    expect(readPagerDutyConfig({ ...VALID_FORWARDER_ENV, [variable]: value })[read]).toBe(expected);
  });

  // One bad value a row, the others valid: exactly its problem, the value shown as a JSON string.
  it.each([
    [
      'PAGERDUTY_ROUTING_KEY_PARAMETER',
      '/pagerduty/routing key',
      'PAGERDUTY_ROUTING_KEY_PARAMETER expects the name of an SSM SecureString, found "/pagerduty/routing key"',
    ],
    [
      'PAGERDUTY_ROUTING_KEY_PARAMETER',
      '/pagerduty/key\n',
      'PAGERDUTY_ROUTING_KEY_PARAMETER expects the name of an SSM SecureString, found "/pagerduty/key\\n"',
    ],
    [
      'PAGERDUTY_ROUTING_KEY_PARAMETER',
      '',
      'PAGERDUTY_ROUTING_KEY_PARAMETER expects the name of an SSM SecureString, found ""',
    ],
    [
      'PAGERDUTY_EVENTS_URL',
      'events.pagerduty.com/v2/enqueue',
      'PAGERDUTY_EVENTS_URL expects an http(s) URL, found "events.pagerduty.com/v2/enqueue"',
    ],
    [
      'PAGERDUTY_EVENTS_URL',
      'file:///v2/enqueue',
      'PAGERDUTY_EVENTS_URL expects an http(s) URL, found "file:///v2/enqueue"',
    ],
    [
      'ROUTING_KEY_MAX_AGE_SECONDS',
      '-1',
      'ROUTING_KEY_MAX_AGE_SECONDS expects a whole number from 0 to 86400, found "-1"',
    ],
    [
      'ROUTING_KEY_MAX_AGE_SECONDS',
      '86401',
      'ROUTING_KEY_MAX_AGE_SECONDS expects a whole number from 0 to 86400, found "86401"',
    ],
    [
      'ROUTING_KEY_MAX_AGE_SECONDS',
      '1.5',
      'ROUTING_KEY_MAX_AGE_SECONDS expects a whole number from 0 to 86400, found "1.5"',
    ],
    [
      'ROUTING_KEY_MAX_AGE_SECONDS',
      '"60"',
      'ROUTING_KEY_MAX_AGE_SECONDS expects a whole number from 0 to 86400, found "\\"60\\""',
    ],
    ['PAGERDUTY_EVENTS_PER', 'Alert', 'PAGERDUTY_EVENTS_PER expects group or alert, found "Alert"'],
    ['PAGERDUTY_EVENTS_PER', 'incident', 'PAGERDUTY_EVENTS_PER expects group or alert, found "incident"'],
    ['STATE_TABLE', 'ab', 'STATE_TABLE expects the name of the DynamoDB state table, found "ab"'],
    ['STATE_TABLE', 'hsa/state', 'STATE_TABLE expects the name of the DynamoDB state table, found "hsa/state"'],
  ])('refuses %s=%j', (variable, value, problem) => {
    // Act
    let error: unknown;
    try {
      readPagerDutyConfig({ ...VALID_FORWARDER_ENV, [variable]: value });
    } catch (e) {
      error = e;
    }
    // Assess
    expect(error).toBeInstanceOf(EnvironmentError);
    expect((error as EnvironmentError).problems).toEqual([problem]);
    expect((error as EnvironmentError).message).toBe(`invalid environment: ${problem}`);
  });

  it('lists every problem at once', () => {
    // Act
    let error: unknown;
    try {
      readPagerDutyConfig({
        PAGERDUTY_EVENTS_URL: 'ftp://events',
        ROUTING_KEY_MAX_AGE_SECONDS: 'soon',
        PAGERDUTY_EVENTS_PER: 'incident',
      });
    } catch (e) {
      error = e;
    }
    // Assess
    expect(error).toBeInstanceOf(EnvironmentError);
    expect((error as EnvironmentError).problems).toEqual([
      'PAGERDUTY_ROUTING_KEY_PARAMETER expects the name of an SSM SecureString, found ""',
      'PAGERDUTY_EVENTS_URL expects an http(s) URL, found "ftp://events"',
      'ROUTING_KEY_MAX_AGE_SECONDS expects a whole number from 0 to 86400, found "soon"',
      'PAGERDUTY_EVENTS_PER expects group or alert, found "incident"',
      'STATE_TABLE expects the name of the DynamoDB state table, found ""',
    ]);
  });
});
