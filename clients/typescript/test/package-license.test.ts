import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const root = fileURLToPath(new URL('../../../', import.meta.url));

describe('the package', () => {
  it("carries the repository's LICENSE and ships it", () => {
    expect(readFileSync(join(root, 'clients/typescript/LICENSE'), 'utf8')).toBe(
      readFileSync(join(root, 'LICENSE'), 'utf8'),
    );
    expect(JSON.parse(readFileSync(join(root, 'clients/typescript/package.json'), 'utf8')).files).toContain('LICENSE');
  });
});
