import { describe, expect, it } from 'vitest';
import { fetchChecked } from '../../../test/support/test-app.js';
import {
  createClient,
  runInstall,
  SlowdnsApiError,
  SlowdnsNetworkError,
  type Activation,
  type RunInstallOptions,
} from '../src/index.js';
import {
  address,
  inProcess,
  INSTALLER_VERSION,
  issueCode,
  machine,
  precheckBody,
  type ClientHarness,
  harnessPerSuite,
  codeStatusOf,
  activationStatusOf,
} from './client-harness.js';

describe('runInstall, the reference installer flow', () => {
  let h: ClientHarness;
  harnessPerSuite(
    inProcess,
    (opened) => {
      h = opened;
    },
    { clock: '2026-11-22T10:00:00.000Z' },
  );

  const codeStatus = (code: string) => codeStatusOf(h, code);
  const activationStatus = (id: string) => activationStatusOf(h, id);

  /** Options for one run; `signals: []` so no test here touches the worker's real signal handling. */
  const options = (installCode: string, overrides: Partial<RunInstallOptions> = {}): RunInstallOptions => ({
    client: h.client,
    installCode,
    machine,
    installerVersion: INSTALLER_VERSION,
    requestedRef: 'main',
    confirmAddress: async () => address,
    install: async () => {},
    signals: [],
    ...overrides,
  });

  it('precheck → confirm address → activate → install → confirm: the code is consumed', async () => {
    const code = await issueCode(h);
    const steps: string[] = [];
    const result = await runInstall(
      options(code, {
        confirmAddress: async (precheck) => {
          steps.push(`confirm address after precheck of ${precheck.install_code_hint}`);
          expect(await codeStatus(code)).toBe('issued');
          return address;
        },
        install: async (activation) => {
          steps.push('install');
          expect(await activationStatus(activation.activation_id)).toBe('activated');
        },
      }),
    );
    expect(result).toEqual({
      outcome: 'confirmed',
      precheck: expect.objectContaining({ install_code: code }),
      activation: expect.objectContaining({
        install_code: code,
        machine_binding: { ...address, ...machine, ssh_key_proven: false },
      }),
      confirmation: {
        activation_id: expect.stringMatching(/^act_/),
        status: 'confirmed',
        receipt: expect.stringMatching(/^[\w-]+\.[\w-]+\.[\w-]+$/),
      },
    });
    expect(steps).toEqual([`confirm address after precheck of SDNS-SD-…${code.slice(-6)}`, 'install']);
    expect(await codeStatus(code)).toBe('consumed');
  });

  it('an install step that throws releases, restoring the code so that it can be prechecked again', async () => {
    const code = await issueCode(h);
    const failure = new Error('apt-get install failed');
    const reports: unknown[] = [];
    const result = await runInstall(
      options(code, { install: async () => Promise.reject(failure), onRelease: (r) => reports.push(r) }),
    );
    expect(result).toMatchObject({
      outcome: 'failed',
      stage: 'install',
      error: failure,
      release: {
        released: true,
        install_code_restored: true,
        result: { status: 'released', install_code_restored: true },
      },
    });
    expect(reports).toEqual([result.outcome === 'failed' ? result.release : undefined]);
    const activationId = result.outcome === 'failed' ? result.activation?.activation_id : undefined;
    expect(await activationStatus(activationId!)).toBe('released');
    expect(await codeStatus(code)).toBe('issued');
    expect(await h.client.precheck(precheckBody(code))).toMatchObject({ install_code: code });
    // And a second run with the same code goes through.
    expect((await runInstall(options(code))).outcome).toBe('confirmed');
  });

  it('a failed precheck ends the run before anything is taken: no release', async () => {
    const result = await runInstall(options('SDNS-SD-000000-000000-000000'));
    expect(result).toMatchObject({ outcome: 'failed', stage: 'precheck' });
    expect(result.outcome === 'failed' && result.error).toBeInstanceOf(SlowdnsApiError);
    expect(result.outcome === 'failed' && (result.error as SlowdnsApiError).code).toBe('install_code_not_found');
    expect(result).not.toHaveProperty('release');
  });

  it('a failing address step leaves the code issued: no release', async () => {
    const code = await issueCode(h);
    const result = await runInstall(
      options(code, { confirmAddress: () => Promise.reject(new Error('operator declined')) }),
    );
    expect(result).toMatchObject({
      outcome: 'failed',
      stage: 'confirm_address',
      error: new Error('operator declined'),
    });
    expect(result).not.toHaveProperty('release');
    expect(await codeStatus(code)).toBe('issued');
  });

  it('an activate the service refuses (bad hostname) has nothing to release', async () => {
    const code = await issueCode(h);
    const result = await runInstall(
      options(code, { confirmAddress: async () => ({ hostname: 'not a host!', public_ip: '203.0.113.7' }) }),
    );
    expect(result).toMatchObject({ outcome: 'failed', stage: 'activate' });
    expect(result.outcome === 'failed' && (result.error as SlowdnsApiError).code).toBe('validation_failed');
    expect(result).not.toHaveProperty('release');
    expect(await codeStatus(code)).toBe('issued');
  });

  it('a confirm refused because the install token expired releases, and reports the code not restored', async () => {
    const code = await issueCode(h);
    const result = await runInstall(
      options(code, {
        install: async () => {
          h.t.clock.advance(3601); // the install took longer than the token lives
        },
      }),
    );
    expect(result).toMatchObject({
      outcome: 'failed',
      stage: 'confirm',
      release: { released: true, install_code_restored: false },
    });
    expect(result.outcome === 'failed' && (result.error as SlowdnsApiError).code).toBe('install_token_invalid');
    expect(await codeStatus(code)).toBe('activated');
  });

  it('a release that cannot reach the service is reported, not thrown', async () => {
    const code = await issueCode(h);
    const client = createClient({
      baseUrl: h.baseUrl,
      fetch: async (request) => {
        if (request.url.endsWith('/release')) throw new TypeError('fetch failed');
        return fetchChecked(h.t.app, request, { incoming: { socket: { remoteAddress: '203.0.113.10' } } });
      },
    });
    const result = await runInstall(options(code, { client, install: () => Promise.reject(new Error('disk full')) }));
    expect(result).toMatchObject({
      outcome: 'failed',
      stage: 'install',
      release: { released: false, install_code_restored: false },
    });
    expect(result.outcome === 'failed' && result.release?.released === false && result.release.error).toBeInstanceOf(
      SlowdnsNetworkError,
    );
  });

  it('an onRelease that throws does not turn the result into a rejection', async () => {
    const code = await issueCode(h);
    const result = await runInstall(
      options(code, {
        install: () => Promise.reject(new Error('disk full')),
        onRelease: () => {
          throw new Error('stderr closed');
        },
      }),
    );
    expect(result).toMatchObject({
      outcome: 'failed',
      stage: 'install',
      release: { released: true, install_code_restored: true },
    });
  });

  it('the caller’s AbortSignal during install interrupts, releases, and aborts the step’s signal', async () => {
    const code = await issueCode(h);
    const controller = new AbortController();
    let stepSignal: AbortSignal | undefined;
    const result = await runInstall(
      options(code, {
        signal: controller.signal,
        install: (_activation, { signal }) => {
          stepSignal = signal;
          controller.abort();
          return new Promise<void>(() => {}); // never settles: runInstall must not wait for it
        },
      }),
    );
    expect(result).toMatchObject({
      outcome: 'interrupted',
      reason: 'aborted',
      stage: 'install',
      release: { released: true, install_code_restored: true },
    });
    expect(stepSignal?.aborted).toBe(true);
    expect(await codeStatus(code)).toBe('issued');
  });

  it('a process signal during install releases, removes its listeners, and with onSignal "return" resolves', async () => {
    const code = await issueCode(h);
    // SIGUSR2 through process.emit: the same listener path as a real SIGTERM (the child-process
    // test sends a real one), without touching the test worker's own SIGTERM handling.
    const before = process.listenerCount('SIGUSR2');
    let during = 0;
    const result = await runInstall(
      options(code, {
        signals: ['SIGUSR2'],
        onSignal: 'return',
        install: (activation: Activation) => {
          during = process.listenerCount('SIGUSR2');
          process.emit('SIGUSR2', 'SIGUSR2');
          expect(activation.activation_id).toMatch(/^act_/);
          return new Promise<void>(() => {});
        },
      }),
    );
    expect(result).toMatchObject({
      outcome: 'interrupted',
      reason: 'SIGUSR2',
      stage: 'install',
      release: { released: true, install_code_restored: true },
    });
    expect({ before, during, after: process.listenerCount('SIGUSR2') }).toEqual({
      before,
      during: before + 1,
      after: before,
    });
    expect(await codeStatus(code)).toBe('issued');
  });

  it('removes its signal listeners after a run that confirmed', async () => {
    const counts = () => ['SIGINT', 'SIGTERM'].map((s) => process.listenerCount(s));
    const before = counts();
    let during: number[] = [];
    // Default signals here: the listeners are only counted, no signal is sent.
    const result = await runInstall({
      ...options(await issueCode(h)),
      signals: undefined,
      install: async () => void (during = counts()),
    });
    expect(result.outcome).toBe('confirmed');
    expect(during).toEqual(before.map((n) => n + 1));
    expect(counts()).toEqual(before);
  });
});
