import type { Activation } from './client.js';

/** What the install step works for: the activation fresh from activate (all of it), or read back on a resume. */
export type InstallActivation = Pick<
  Activation,
  'activation_id' | 'install_token' | 'install_token_expires_at' | 'machine_binding'
>;

/** What runInstall keeps between runs: the activation it holds. The install token is a secret: keep it private, never log it. */
export interface SavedActivation {
  activation_id: string;
  install_token: string;
}

/**
 * Where runInstall keeps its activation between runs, so that a rerun after a crash resumes the install
 * instead of meeting its own code in use (409) until the install token expires. `save` is called right
 * after activate, `clear` once the activation is released or found unusable; a store with `load` only
 * resumes an activation the caller kept itself.
 */
export interface InstallStateStore {
  load(): SavedActivation | undefined | Promise<SavedActivation | undefined>;
  save?(state: SavedActivation): void | Promise<void>;
  clear?(): void | Promise<void>;
}

const shellSafe = /^[A-Za-z0-9._-]+$/;

/**
 * A state store in one file, as the shell client keeps its state file: JSON holding the activation id
 * and install token, mode 600 in a folder made 700, replaced atomically (written beside it, then
 * renamed), removed by `clear`. A missing file is no state; a file that is not one is an error.
 */
export function fileStateStore(path: string): Required<InstallStateStore> {
  // Node's modules through process.getBuiltinModule, not a static import: a browser build of
  // createClient, from the same entry point, never meets node:fs.
  const fs = process.getBuiltinModule('node:fs/promises');
  const { dirname } = process.getBuiltinModule('node:path');
  return {
    async load() {
      let text: string;
      try {
        text = await fs.readFile(path, 'utf8');
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
        throw error;
      }
      let state: unknown;
      try {
        state = JSON.parse(text);
      } catch {
        state = undefined;
      }
      const { activation_id, install_token } = (typeof state === 'object' && state !== null ? state : {}) as Record<
        string,
        unknown
      >;
      if (
        typeof activation_id !== 'string' ||
        typeof install_token !== 'string' ||
        !shellSafe.test(activation_id) ||
        !shellSafe.test(install_token)
      ) {
        throw new Error(
          `${path} does not hold an install state (an activation_id and an install_token); remove it to start a new install`,
        );
      }
      return { activation_id, install_token };
    },
    async save({ activation_id, install_token }) {
      await fs.mkdir(dirname(path), { recursive: true, mode: 0o700 });
      const written = `${path}.${process.pid}.tmp`;
      await fs.rm(written, { force: true });
      await fs.writeFile(written, `${JSON.stringify({ activation_id, install_token })}\n`, { mode: 0o600, flag: 'wx' });
      await fs.rename(written, path);
    },
    async clear() {
      await fs.rm(path, { force: true });
    },
  };
}
