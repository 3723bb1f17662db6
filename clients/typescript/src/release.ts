import type { ReleaseResult, SlowdnsClient } from './client.js';

/** The release attempt after a failure or interruption. */
export type ReleaseReport =
  | { released: true; activation_id: string; install_code_restored: boolean; result: ReleaseResult }
  | { released: false; activation_id: string; install_code_restored: false; error: unknown };

/**
 * Releases the activation with its install token (the proof that this installer asks, wherever it runs from),
 * given up on after `timeoutMs` (a hung network must not keep a SIGTERM waiting); never throws.
 */
export async function releaseActivation(
  client: SlowdnsClient,
  activation: { activation_id: string; install_token: string },
  timeoutMs: number,
): Promise<ReleaseReport> {
  const activationId = activation.activation_id;
  try {
    const result = await client.release(
      { activation_id: activationId, install_token: activation.install_token },
      { signal: AbortSignal.timeout(timeoutMs) },
    );
    return { released: true, activation_id: activationId, install_code_restored: result.install_code_restored, result };
  } catch (error) {
    return { released: false, activation_id: activationId, install_code_restored: false, error };
  }
}
