import { describe, expect, it } from 'vitest';
import { fetchChecked } from '../../../test/support/test-app.js';
import { createClient, runInstall, type SlowdnsApiError, type RunInstallOptions } from '../src/index.js';
import {
  address,
  inProcess,
  INSTALLER_VERSION,
  issueCode,
  machine,
  type ClientHarness,
  harnessPerSuite,
  codeStatusOf,
  activationStatusOf,
} from './client-harness.js';

/** What a state store holds: the activation of a run, kept between runs. */
interface Saved {
  activation_id: string;
  install_token: string;
}

/** A state store in memory, as a caller's own would be (a file, a database row, a secret store). */
function memoryStore(initial?: Saved) {
  let saved = initial;
  return {
    load: () => saved,
    save: (state: Saved) => void (saved = { ...state }),
    clear: () => void (saved = undefined),
    get current() {
      return saved;
    },
  };
}

/**
 * runInstall resumes from a state it keeps, with the shell client's rules (clients/shell/README.md,
 * "Resuming"): activated with a valid token → the install step again, then confirm; confirmed → done;
 * token expired → released and a new flow; released or unknown → a new flow.
 */
describe('runInstall resumes an install from its state', () => {
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
  const noCode = () => Promise.reject(new Error('no install code should be needed'));

  const options = (overrides: Partial<RunInstallOptions>): RunInstallOptions => ({
    client: h.client,
    installCode: noCode,
    machine,
    installerVersion: INSTALLER_VERSION,
    requestedRef: 'main',
    confirmAddress: async () => address,
    install: async () => {},
    signals: [],
    ...overrides,
  });

  /** A run whose process died during its install step: never released, its state left behind. */
  async function crashedRun(store: ReturnType<typeof memoryStore>, code: string): Promise<string> {
    const kept = await crashedRunWithToken(store, code);
    expect(store.current).toEqual(kept);
    return kept.activation_id;
  }
  async function crashedRunWithToken(store: ReturnType<typeof memoryStore>, code: string): Promise<Saved> {
    let installing: (activation: Saved) => void = () => {};
    const started = new Promise<Saved>((resolve) => (installing = resolve));
    // Its install step never settles and nothing interrupts it: the run is abandoned, as a killed process is.
    void runInstall(
      options({
        installCode: code,
        state: store,
        install: (activation) => {
          installing(activation);
          return new Promise<void>(() => {});
        },
      }),
    );
    const { activation_id, install_token } = await started;
    expect(await activationStatus(activation_id)).toBe('activated');
    return { activation_id, install_token };
  }

  it('a rerun after a crash during install resumes it from the kept state, with the same activation (the install step again, then confirm), asking no code', async () => {
    const store = memoryStore();
    const code = await issueCode(h);
    const activationId = await crashedRun(store, code);
    const installs: { id: string; resumed: string | undefined }[] = [];
    const result = await runInstall(
      options({
        state: store,
        install: async (activation, { resumed }) =>
          void installs.push({ id: activation.activation_id, resumed: resumed?.status }),
      }),
    );
    expect(result).toEqual({
      outcome: 'confirmed',
      resumed: expect.objectContaining({
        activation_id: activationId,
        status: 'activated',
        install_token_expired: false,
      }),
      activation: {
        activation_id: activationId,
        install_token: store.current?.install_token,
        install_token_expires_at: expect.any(String),
        machine_binding: { ...address, ...machine, ssh_key_proven: false },
      },
      confirmation: {
        activation_id: activationId,
        status: 'confirmed',
        receipt: expect.stringMatching(/^[\w-]+\.[\w-]+\.[\w-]+$/),
      },
    });
    expect(installs).toEqual([{ id: activationId, resumed: 'activated' }]);
    expect(await activationStatus(activationId)).toBe('confirmed');
    expect(await codeStatus(code)).toBe('consumed');
    // Kept after confirm, as the shell client keeps its state file: a further rerun learns it is done.
    expect(store.current?.activation_id).toBe(activationId);
  });

  it('the resumed install step is told what the earlier run did: a server it registered (a second register would be 409)', async () => {
    const store = memoryStore();
    let registered: (id: string) => void = () => {};
    const started = new Promise<string>((resolve) => (registered = resolve));
    void runInstall(
      options({
        installCode: await issueCode(h),
        state: store,
        install: async (activation) => {
          await h.client.register({
            activation_id: activation.activation_id,
            install_token: activation.install_token,
            agent_version: INSTALLER_VERSION,
          });
          registered(activation.activation_id);
          return new Promise<void>(() => {}); // the process dies here
        },
      }),
    );
    const activationId = await started;
    let seen: unknown;
    const result = await runInstall(
      options({ state: store, install: async (_activation, { resumed }) => void (seen = resumed?.server_registered) }),
    );
    expect(result).toMatchObject({ outcome: 'confirmed', confirmation: { activation_id: activationId } });
    expect(seen).toBe(true);
  });

  it('a rerun of a confirmed install is done at once: outcome confirmed, no step runs', async () => {
    const store = memoryStore();
    const code = await issueCode(h);
    const first = await runInstall(options({ installCode: code, state: store }));
    expect(first.outcome).toBe('confirmed');
    let steps = 0;
    const again = await runInstall(
      options({
        state: store,
        confirmAddress: async () => {
          steps++;
          return address;
        },
        install: async () => void steps++,
      }),
    );
    expect(again).toMatchObject({
      outcome: 'confirmed',
      resumed: { status: 'confirmed' },
      confirmation: { activation_id: store.current?.activation_id, status: 'confirmed' },
    });
    expect(steps).toBe(0);
  });

  it('an activation whose install token expired is released and a new flow starts, with the code asked for only now', async () => {
    const store = memoryStore();
    const stale = await crashedRun(store, await issueCode(h));
    h.t.clock.advance(3601); // the install token (and the first code) expired meanwhile
    const fresh = await issueCode(h);
    let asked = 0;
    const result = await runInstall(
      options({
        state: store,
        installCode: async () => {
          asked++;
          return fresh;
        },
      }),
    );
    expect(result).toMatchObject({ outcome: 'confirmed', activation: { install_code: fresh } });
    expect(asked).toBe(1);
    expect(await activationStatus(stale)).toBe('released');
    expect(store.current?.activation_id).not.toBe(stale);
  });

  it('a released activation, or one the service does not know, is forgotten and a new flow starts', async () => {
    const store = memoryStore();
    const code = await issueCode(h);
    const released = await crashedRun(store, code);
    await h.client.release({ activation_id: released });
    const afterRelease = await runInstall(options({ state: store, installCode: code }));
    expect(afterRelease).toMatchObject({ outcome: 'confirmed', activation: { install_code: code } });
    expect(afterRelease.outcome === 'confirmed' && afterRelease.activation.activation_id).not.toBe(released);

    const unknown = memoryStore({ activation_id: 'act_0000000000000000', install_token: store.current!.install_token });
    const other = await issueCode(h);
    expect(await runInstall(options({ state: unknown, installCode: other }))).toMatchObject({
      outcome: 'confirmed',
      activation: { install_code: other },
    });
  });

  it('a resumed install step that fails releases (the code restored) and clears the state', async () => {
    const store = memoryStore();
    const code = await issueCode(h);
    const activationId = await crashedRun(store, code);
    const result = await runInstall(options({ state: store, install: () => Promise.reject(new Error('disk full')) }));
    expect(result).toMatchObject({
      outcome: 'failed',
      stage: 'install',
      error: new Error('disk full'),
      activation: { activation_id: activationId },
      release: { released: true, install_code_restored: true },
    });
    expect(await activationStatus(activationId)).toBe('released');
    expect(await codeStatus(code)).toBe('issued');
    expect(store.current).toBeUndefined();
  });

  it('a state the service cannot read back now (503) fails the run at resume: nothing released, the state kept for the next run', async () => {
    const store = memoryStore();
    const activationId = await crashedRun(store, await issueCode(h));
    const client = createClient({
      baseUrl: h.baseUrl,
      fetch: async (request) =>
        request.url.endsWith('/install/status')
          ? Response.json(
              { error: { code: 'service_unavailable', message: 'The service cannot reach its database right now.' } },
              { status: 503 },
            )
          : fetchChecked(h.t.app, request, { incoming: { socket: { remoteAddress: '203.0.113.10' } } }),
    });
    const result = await runInstall(options({ client, state: store }));
    expect(result).toMatchObject({ outcome: 'failed', stage: 'resume' });
    expect(result.outcome === 'failed' && (result.error as SlowdnsApiError).code).toBe('service_unavailable');
    expect(result).not.toHaveProperty('release');
    expect(await activationStatus(activationId)).toBe('activated');
    expect(store.current?.activation_id).toBe(activationId);
  });

  it('an activation id and install token the caller kept itself resume the same way (a store with load only), before the code is tried again', async () => {
    const code = await issueCode(h);
    // The caller's own keeping: the install step is given the id and token.
    const kept = await crashedRunWithToken(memoryStore(), code);
    const result = await runInstall(options({ installCode: code, state: { load: () => kept } }));
    expect(result).toMatchObject({ outcome: 'confirmed', confirmation: { activation_id: kept.activation_id } });
    expect(await codeStatus(code)).toBe('consumed');
  });

  it('a fresh run saves its activation right after activate and clears it once a failure was released', async () => {
    const store = memoryStore();
    let savedDuringInstall: Saved | undefined;
    const result = await runInstall(
      options({
        installCode: await issueCode(h),
        state: store,
        install: async () => {
          savedDuringInstall = store.current;
          throw new Error('apt-get install failed');
        },
      }),
    );
    expect(result).toMatchObject({ outcome: 'failed', stage: 'install', release: { released: true } });
    expect(savedDuringInstall).toEqual({
      activation_id: result.outcome === 'failed' ? result.activation?.activation_id : '',
      install_token: expect.any(String),
    });
    expect(store.current).toBeUndefined();
  });
});
