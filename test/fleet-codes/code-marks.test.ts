import { describe, expect, it } from 'vitest';
import {
  generateInstallCode,
  mayBeFleetCode,
  normaliseInstallCode,
} from '../../src/domain/install-codes/code-format.js';
import { issueCode } from '../support/install-flow.js';
import { useTestApp } from '../support/test-app.js';
import { ADMIN_TOKEN, createCode } from './fleet-requests.js';

describe("a fleet code is told from a page code by its shape, so a page code's steps read no binding", () => {
  const t = useTestApp({ ADMIN_TOKEN });

  it('a page code never starts its random part with Z and a fleet code always does, both in the seed shape', () => {
    const page = Array.from({ length: 3000 }, () => generateInstallCode('SDNS'));
    const operator = Array.from({ length: 300 }, () => generateInstallCode('SDNS', 'fleet'));
    for (const code of [...page, ...operator]) expect(normaliseInstallCode(code)).toBe(code);
    expect(page.filter(mayBeFleetCode)).toEqual([]);
    expect(operator.every(mayBeFleetCode)).toBe(true);
    // The other 31 characters still come first in page codes: the mark costs a twentieth of a bit, no more.
    expect(new Set(page.map((code) => code.charAt(8))).size).toBe(31);
  });

  it('the admin route issues codes with the mark, and the page issues codes without it', async () => {
    const { install_code: fleetCode } = await createCode(t, { uses: 3 });
    expect(mayBeFleetCode(fleetCode)).toBe(true);
    expect(mayBeFleetCode(await issueCode(t))).toBe(false);
  });
});
