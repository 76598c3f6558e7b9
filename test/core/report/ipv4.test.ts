/**
 * `ipv4Key` (src/core/report/ipv4.ts): a canonical IPv4 address as its number, anything else -1,
 * so that two texts get the same number exactly when they are the same canonical address.
 */
import { describe, expect, it } from 'vitest';
import { ipv4Key } from '../../../src/core/report/ipv4.ts';

describe('ipv4Key', () => {
  it.each([
    ['10.0.0.1', 167_772_161],
    ['10.0.0.10', 167_772_170],
    ['0.0.0.0', 0],
    ['255.255.255.255', 4_294_967_295],
    ['192.168.1.100', 3_232_235_876],
    ['256.1.1.1', -1],
    ['01.2.3.4', -1],
    ['1.2.3.00', -1],
    ['1.2.3', -1],
    ['1.2.3.4.5', -1],
    ['1.2.3.4 ', -1],
    [' 1.2.3.4', -1],
    ['1..2.3', -1],
    ['1234.1.1.1', -1],
    ['::1', -1],
    ['2001:db8::7', -1],
    ['', -1],
    ['a.b.c.d', -1],
  ])('%j: %d', (text, expected) => {
    expect(ipv4Key(text, 0, text.length)).toBe(expected);
  });

  it('reads only [start, end) of a longer text', () => {
    const row = '<td>10.0.0.1</td><td>10.0.0.12</td>';
    expect(ipv4Key(row, 4, 12)).toBe(167_772_161);
    expect(ipv4Key(row, 4, 11)).toBe(ipv4Key('10.0.0.', 0, 7));
    expect(ipv4Key(row, 21, 30)).toBe(167_772_172);
  });
});
