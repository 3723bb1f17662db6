import type { InstallStatus, SlowdnsClient } from './client.js';
import { SlowdnsApiError } from './errors.js';
import type { InstallActivation, InstallStateStore, SavedActivation } from './install-state.js';
import { releaseActivation } from './release.js';

/** What a run does with the activation an earlier run saved. */
export type Resumption =
  | { next: 'new_flow' }
  /** `install`: run the install step again, then confirm. `done`: the install is already confirmed. */
  | { next: 'install' | 'done'; status: InstallStatus; activation: InstallActivation };

/**
 * Where the saved activation stands, by the shell client's rules (clients/shell/README.md, "Resuming"):
 * activated with a valid install token → install again; confirmed → done; token expired → released,
 * then a new flow; released, or unknown to the service → forgotten, then a new flow. `interruptible`
 * wraps what changes nothing (loading, reading back); a release, once sent, is waited for.
 */
export async function findResumption(
  client: SlowdnsClient,
  state: InstallStateStore,
  {
    signal,
    releaseTimeoutMs,
    interruptible,
  }: { signal: AbortSignal; releaseTimeoutMs: number; interruptible: <T>(work: () => Promise<T>) => Promise<T> },
): Promise<Resumption> {
  const saved = await interruptible(async () => state.load());
  if (!saved) return { next: 'new_flow' };
  const found = await interruptible(() => readBack(client, saved, signal));
  if (found?.status === 'confirmed')
    return { next: 'done', status: found, activation: resumedActivation(saved, found) };
  if (found?.status === 'activated' && !found.install_token_expired)
    return { next: 'install', status: found, activation: resumedActivation(saved, found) };
  if (found?.status === 'activated') {
    const release = await releaseActivation(client, saved, releaseTimeoutMs);
    if (!release.released) throw release.error;
  }
  await state.clear?.();
  return { next: 'new_flow' };
}

/** The install of a saved activation as the service has it, or undefined when it does not know it (any more). */
async function readBack(
  client: SlowdnsClient,
  saved: SavedActivation,
  signal: AbortSignal,
): Promise<InstallStatus | undefined> {
  try {
    return await client.installStatus(
      { activation_id: saved.activation_id, install_token: saved.install_token },
      { signal },
    );
  } catch (error) {
    if (
      error instanceof SlowdnsApiError &&
      (error.code === 'activation_not_found' || error.code === 'install_token_invalid')
    )
      return undefined;
    throw error;
  }
}

function resumedActivation(saved: SavedActivation, found: InstallStatus): InstallActivation {
  return {
    activation_id: found.activation_id,
    install_token: saved.install_token,
    install_token_expires_at: found.install_token_expires_at,
    machine_binding: found.machine_binding,
  };
}
