import { describe, expect, it } from 'vitest';
import { activateRequest, issueCode, machine, precheckRequest } from '../support/install-flow.js';
import { useTestApp } from '../support/test-app.js';

const fingerprint = machine.ssh_fingerprint;

describe('ssh_fingerprint as people paste it', () => {
  const t = useTestApp();

  it.each([
    ['the whole ssh-keygen -lf line', `256 ${fingerprint} root@vpn1 (ED25519)`],
    ['a line whose comment has spaces', `3072 ${fingerprint} Jane Doe's key (RSA)\n`],
    ['a line with no comment', `256 ${fingerprint} no comment (ECDSA)`],
    ['surrounding whitespace', `  ${fingerprint}\n`],
  ])('keeps only the fingerprint of %s', async (_, pasted) => {
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

  it.each([
    ['an MD5 line', '2048 MD5:aa:bb:cc root@host (RSA)'],
    ['a truncated fingerprint', '256 SHA256:abc root@host (ED25519)'],
    ['a line with something before the size', `key 256 ${fingerprint} x (ED25519)`],
  ])('still refuses %s with 400 naming the field', async (_, pasted) => {
    const code = await issueCode(t);
    const res = await precheckRequest(t, code, { ssh_fingerprint: pasted });
    expect(res.status).toBe(400);
    const { error } = await res.json();
    expect(error.message).toContain('ssh_fingerprint');
  });
});
