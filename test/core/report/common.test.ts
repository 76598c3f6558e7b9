/**
 * The hand-written readers of common.ts that stand in for a regex or `parseInt` on every slot row:
 * they must answer exactly as what they replace.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { isRequestTruncated, PROTOCOL_TAIL } from '../../../src/core/report/common.ts';

const byRegex = (request: string) => request !== '' && request !== 'NULL' && !PROTOCOL_TAIL.test(request);

describe('isRequestTruncated', () => {
  it.each([
    ['GET /index.html HTTP/1.1', false],
    ['GET / HTTPS/2', false],
    ['DESCRIBE rtsp://x/a RTSP/1.0', false],
    ['GET /x\tHTTP/1.1', false],
    ['GET /a-very-long-path-cut-off-at-63-characters-by-mod_status HTT', true],
    ['GET / HTTP/1.', true],
    ['GET / HTTP/.1', true],
    ['GET / HTTP/', true],
    ['GET / HTTP1.1', true],
    ['HTTP/1.1', true],
    [' HTTP/1.1', false],
    ['GET / xHTTP/1.1', true],
    ['GET / HTTPS/1.1', false],
    ['GET / TTPS/1.1', true],
    ['GET / HTTP/1..1', true],
    ['GET / HTTP/a1.1', true],
    ['GET / HTTP/12.34', false],
    ['GET / HTTP/1.1\n', true],
    ['GET / http/1.1', true],
    ['GET /\u00a0HTTP/1.1', false],
    ['', false],
    ['NULL', false],
  ])('%j truncated: %s', (request, truncated) => {
    expect(isRequestTruncated(request)).toBe(truncated);
    expect(byRegex(request)).toBe(truncated);
  });

  it('answers as the PROTOCOL_TAIL regex on any string built from its pieces', () => {
    const piece = fc.constantFrom(' ', '\t', 'HTTP', 'HTTPS', 'RTSP', 'TTP', '/', '.', '1', '12', 'x', 'GET');
    fc.assert(
      fc.property(fc.array(piece, { maxLength: 8 }), (pieces) => {
        const request = pieces.join('');
        expect(isRequestTruncated(request)).toBe(byRegex(request));
      }),
      { numRuns: 2000 },
    );
  });
});
