import { describe, expect, it } from 'vitest';
import {
  activateRequest,
  freshClient,
  issueCode,
  machine,
  precheckRequest,
  randomMachine,
} from '../support/install-flow.js';
import { useTestApp } from '../support/test-app.js';

const fingerprint = machine.ssh_fingerprint;

const accepted = [
  ['the whole ssh-keygen -lf line', `256 ${fingerprint} root@vpn1 (ED25519)`],
  ['a line whose comment has spaces', `3072 ${fingerprint} Jane Doe's key (RSA)\n`],
  ['a line with no comment', `256 ${fingerprint} no comment (ECDSA)`],
  ['surrounding whitespace', `  ${fingerprint}\n`],
];
const refused = [
  ['an MD5 line', '2048 MD5:aa:bb:cc root@host (RSA)'],
  ['a truncated fingerprint', '256 SHA256:abc root@host (ED25519)'],
  ['a line with something before the size', `key 256 ${fingerprint} x (ED25519)`],
  ['a fingerprint followed by a word', `${fingerprint} root@host`],
  ['a fingerprint one character too long', `256 ${fingerprint}A root@host`],
  ['an information separator (U+001C, whitespace to Python) around it', `\u001c${fingerprint}`],
  ['a key size in other digits', `\u0662\u0665\u0666 ${fingerprint} root@host`],
];

/** A small seeded generator (mulberry32): the same values on every run. */
function seeded(seed: number) {
  let a = seed;
  const next = () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const pick = <T>(items: readonly T[]): T => items[Math.floor(next() * items.length)]!;
  const text = (alphabet: string, min: number, max: number) =>
    Array.from({ length: min + Math.floor(next() * (max - min + 1)) }, () => pick([...alphabet])).join('');
  return { next, pick, text };
}

const BASE64 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';
const WHITESPACE = ' \t\n\v\f\r\u00a0\u2003\u2028\ufeff';

/**
 * Values as a generator reading the documented pattern makes them (Schemathesis does the same): any
 * surrounding whitespace, the bare fingerprint, or a key size, whitespace, the fingerprint and any
 * comment after whitespace. Each answers the fingerprint it holds.
 */
function generatedFingerprints(count: number): { value: string; fingerprint: string }[] {
  const g = seeded(24);
  return Array.from({ length: count }, (_, i) => {
    const fp = `SHA256:${g.text(BASE64, 43, 43)}`;
    const lead = g.text(WHITESPACE, 0, 3);
    const value =
      i % 2 === 0
        ? `${lead}${fp}${g.text(WHITESPACE, 0, 3)}`
        : `${lead}${g.text('0123456789', 1, 5)}${g.text(WHITESPACE, 1, 3)}${fp}${g.next() < 0.3 ? '' : `${g.text(WHITESPACE, 1, 2)}${g.text('abc XYZ@.()-_é\n\t', 0, 40)}`}`;
    return { value, fingerprint: fp };
  });
}

describe('ssh_fingerprint as people paste it', () => {
  const t = useTestApp();

  it.each(accepted)('keeps only the fingerprint of %s', async (_, pasted) => {
    const code = await issueCode(t);
    const res = await precheckRequest(t, code, { ssh_fingerprint: pasted });
    expect(res.status).toBe(200);
    const { data } = await res.json();
    expect(data.machine_binding.ssh_fingerprint).toBe(fingerprint);
    // The token is bound to the fingerprint alone: activate with the bare one matches it.
    const activated = await activateRequest(t, code, data.precheck_token, { ssh_fingerprint: fingerprint });
    expect(activated.status).toBe(200);
    expect((await activated.json()).data.machine_binding.ssh_fingerprint).toBe(fingerprint);
  });

  it.each(refused)('still refuses %s with 400 naming the field', async (_, pasted) => {
    const code = await issueCode(t);
    const res = await precheckRequest(t, code, { ssh_fingerprint: pasted });
    expect(res.status).toBe(400);
    const { error } = await res.json();
    expect(error.message).toContain('ssh_fingerprint');
  });

  it('the document states the pattern of what is accepted, on precheck and activate: every accepted form matches it, no refused one does', () => {
    const schemas = ['PrecheckRequest', 'ActivateRequest'].map(
      (name) =>
        (
          t.document.components!.schemas![name] as {
            properties: Record<string, { pattern?: string; maxLength?: number }>;
          }
        ).properties.ssh_fingerprint!,
    );
    expect(schemas[0]).toEqual(schemas[1]);
    expect(schemas[0]).toMatchObject({ type: 'string', maxLength: 1024, pattern: expect.any(String) });
    const pattern = new RegExp(schemas[0]!.pattern!, 'u');
    for (const [what, value] of [...accepted, ['the bare fingerprint', fingerprint]])
      expect(pattern.test(value!), what).toBe(true);
    for (const [what, value] of refused) expect(pattern.test(value!), what).toBe(false);
  });

  it('values generated from the documented pattern are accepted, each answered as the fingerprint it holds', async () => {
    const { pattern, maxLength } = (
      t.document.components!.schemas!.PrecheckRequest as {
        properties: Record<string, { pattern: string; maxLength: number }>;
      }
    ).properties.ssh_fingerprint!;
    expect(pattern).toEqual(expect.any(String));
    const code = await issueCode(t);
    const answers: string[] = [];
    for (const { value, fingerprint: held } of generatedFingerprints(24)) {
      expect(new RegExp(pattern, 'u').test(value) && value.length <= maxLength, JSON.stringify(value)).toBe(true);
      const res = await precheckRequest(t, code, { ...randomMachine(), ssh_fingerprint: value }, freshClient().address);
      const body = await res.json();
      answers.push(`${JSON.stringify(value)} ${res.status} ${body.data?.machine_binding.ssh_fingerprint === held}`);
    }
    expect(answers.filter((a) => !a.endsWith(' 200 true'))).toEqual([]);
  });
});
