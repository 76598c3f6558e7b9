import { describe, expect, it } from 'vitest';
import { MAX_FAILURE_DETAIL_CHARS } from '../../src/core/constants.ts';
import { downObservation } from '../../src/core/downObservation.ts';

describe('downObservation', () => {
  it.each([
    [
      'a TLS error quoting a hostile certificate name keeps the name, without its bidi and zero-width characters',
      'tls',
      "TLS with localhost:8443 failed: Hostname/IP does not match certificate's altnames: Host: localhost. is not cert's CN: <!channel> [x](https://evil.example) \u202Emoc.live\u200B (ERR_TLS_CERT_ALTNAME_INVALID)",
      "TLS with localhost:8443 failed: Hostname/IP does not match certificate's altnames: Host: localhost. is not cert's CN: <!channel> [x](https://evil.example) moc.live (ERR_TLS_CERT_ALTNAME_INVALID)",
    ],
    [
      'a forged second line is joined to the first',
      'not-a-report',
      'HTTP 200 from web-1/ is not a server-status report\r\n[FIRING critical] web-2: fake',
      'HTTP 200 from web-1/ is not a server-status report[FIRING critical] web-2: fake',
    ],
    [
      'URL credentials in a Location are redacted',
      'redirect',
      'HTTP 302 from web-1 redirects to https://ops:s3cret@evil.example/ - only same-host redirects are followed',
      'HTTP 302 from web-1 redirects to https://ops:***@evil.example/ - only same-host redirects are followed',
    ],
    ['a plain detail is kept as it is', 'timeout', 'no answer in 5 s', 'no answer in 5 s'],
  ])('%s', (_, reason, detail, expected) => {
    // Act
    const observation = downObservation(reason, detail);

    // Assess
    expect(observation).toEqual({ kind: 'down', reason, detail: expected });
  });

  it(`caps the detail at ${MAX_FAILURE_DETAIL_CHARS} characters`, () => {
    // Act
    const { detail } = downObservation('network', `network error with web-1: ${'x'.repeat(1000)}`);

    // Assess
    expect(detail).toBe(`network error with web-1: ${'x'.repeat(271)}...`);
  });
});
