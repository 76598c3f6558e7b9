/**
 * The hand-written readers of common.ts that stand in for a regex or `parseInt` on every slot row:
 * they must answer exactly as what they replace.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { emptyServer, isRequestTruncated, PROTOCOL_TAIL, readHeaderSentence } from '../../../src/core/report/common.ts';

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

describe('readHeaderSentence: Total Traffic in kB', () => {
  // mod_status prints "%d kB" below 1 MB, then "%.1f MB" and "%.1f GB" (powers of 1,024).
  it.each([
    ['Total accesses: 14 - Total Traffic: 78 kB - Total Duration: 12', 14, 78],
    ['Total accesses: 0 - Total Traffic: 0 kB', 0, 0],
    ['Total accesses: 2748 - Total Traffic: 9.6 MB', 2748, 9830],
    ['Total accesses: 254 - Total Traffic: 32.0 MB - Total Duration: 3437', 254, 32768],
    ['Total accesses: 47179 - Total Traffic: 1.2 GB - Total Duration: 2313833', 47179, 1258291],
    ['Total accesses: 237127 - Total Traffic: 14.5 GB', 237127, 15204352],
    ['Total accesses: 237127\t-\tTotal Traffic:\t14.5 GB', 237127, 15204352],
    ['Total accesses: 5 - Total Traffic: 12 TB', 5, null],
    ['Total accesses: 5 - Total Traffic: 1.2.3 GB', 5, null],
    ['Total accesses: 5 - Total Traffic: 12 kBytes', 5, null],
    ['Total accesses: 5', 5, null],
  ])('%j: %s accesses, %s kB', (sentence, accesses, kbytes) => {
    // Prepare
    const server = emptyServer();
    // Act
    const read = readHeaderSentence(sentence, server);
    // Assess
    expect(read).toBe(true);
    expect(server.totalAccesses).toBe(accesses);
    expect(server.totalKBytes).toBe(kbytes);
  });
});
