import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

const buildConfig = fileURLToPath(new URL('../tsconfig.build.json', import.meta.url));

describe('the client source under a strict consumer', () => {
  // A consumer that compiles the source (a monorepo, a bundler with type checks) may use
  // `exactOptionalPropertyTypes`: then `{ headers: undefined }` is not an absent `headers`.
  it('type-checks with exactOptionalPropertyTypes', () => {
    const parsed = ts.getParsedCommandLineOfConfigFile(
      buildConfig,
      { exactOptionalPropertyTypes: true, noEmit: true },
      { ...ts.sys, onUnRecoverableConfigFileDiagnostic: () => {} },
    );
    if (!parsed) throw new Error(`cannot read ${buildConfig}`);
    const program = ts.createProgram(parsed.fileNames, parsed.options);
    const diagnostics = ts
      .getPreEmitDiagnostics(program)
      .map((d) => ts.flattenDiagnosticMessageText(d.messageText, '\n').split('\n')[0]);
    expect(diagnostics).toEqual([]);
  }, 60_000);
});
