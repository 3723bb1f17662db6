import { describe, expect, it } from 'vitest';
import { canonicalJson, requestFingerprint } from '../../src/domain/idempotency/request-fingerprint.js';

describe('the fingerprint of a request under an Idempotency-Key reads its body in RFC 8785 form', () => {
  it('writes the RFC 8785 sample (section 3.2.2) as the RFC does: numbers, escapes and literals', () => {
    const input = String.raw`{
      "numbers": [333333333.33333329, 1E30, 4.50, 2e-3, 0.000000000000000000000000001],
      "string": "\u20ac$\u000F\u000aA'\u0042\u0022\u005c\\\"\/",
      "literals": [null, true, false]
    }`;
    expect(canonicalJson(JSON.parse(input))).toBe(
      String.raw`{"literals":[null,true,false],"numbers":[333333333.3333333,1e+30,4.5,0.002,1e-27],"string":"€$\u000f\nA'B\"\\\\\"/"}`,
    );
  });

  it('sorts members by their names in UTF-16 code units, as the RFC sample of section 3.2.3', () => {
    const input = String.raw`{"\u20ac": "Euro Sign", "\r": "Carriage Return", "\ufb33": "Hebrew Letter Dalet With Dagesh", "1": "One", "\ud83d\ude00": "Emoji: Grinning Face", "\u0080": "Control", "\u00f6": "Latin Small Letter O With Diaeresis"}`;
    expect([...canonicalJson(JSON.parse(input)).matchAll(/:"([^"]+)"/g)].map((m) => m[1])).toEqual([
      'Carriage Return',
      'One',
      'Control',
      'Latin Small Letter O With Diaeresis',
      'Euro Sign',
      'Emoji: Grinning Face',
      'Hebrew Letter Dalet With Dagesh',
    ]);
  });

  it('is the same for the same request in another order or spacing, and differs for another body, path or query', () => {
    const of = (path: string, query: string, body: string) =>
      requestFingerprint({ path, search: new URLSearchParams(query), body });
    const base = of('/api/v2/admin/install-codes', 'a=1&b=2', '{"uses": 5, "tags": {"x": "1", "y": "2"}}');
    expect(of('/api/v2/admin/install-codes', 'b=2&a=1', '{"tags":{"y":"2","x":"1"},"uses":5.0}')).toBe(base);
    expect(of('/api/v2/admin/install-codes', 'a=1&b=2', '{"uses": 6, "tags": {"x": "1", "y": "2"}}')).not.toBe(base);
    expect(of('/api/v2/admin/webhooks', 'a=1&b=2', '{"uses": 5, "tags": {"x": "1", "y": "2"}}')).not.toBe(base);
    expect(of('/api/v2/admin/install-codes', 'a=1&b=3', '{"uses": 5, "tags": {"x": "1", "y": "2"}}')).not.toBe(base);
  });
});
