import { open } from 'node:fs/promises';

/**
 * Where an unattended installer (cloud-init, Ansible, a golden image) finds its install code, as
 * activate.sh does: a file named here, else `SLOWDNS_INSTALL_CODE`, else the file
 * `SLOWDNS_INSTALL_CODE_FILE` names.
 */
export interface InstallCodeSource {
  /** A file whose first line is the code: a regular file of this user's (or root's) that no one else may read or write (mode 600). */
  codeFile?: string;
  /** The environment to read; `process.env` when not given. */
  env?: Readonly<Record<string, string | undefined>>;
}

/** No code was found, or its file may be read or written by others. Its message never holds the code. */
export class InstallCodeSourceError extends Error {
  override name = 'InstallCodeSourceError';
}

/**
 * The install code of an unattended install, for `runInstall`'s `installCode`
 * (`installCode: () => readInstallCode({ codeFile: '/run/slowdns/install-code' })`: read only when a
 * new flow starts). A code file that others may read is refused: a code others can read is a code anyone
 * on the machine can enrol with, and one others can write may be swapped for theirs.
 */
export async function readInstallCode(source: InstallCodeSource = {}): Promise<string> {
  const env = source.env ?? process.env;
  const file = source.codeFile ?? (env.SLOWDNS_INSTALL_CODE ? undefined : env.SLOWDNS_INSTALL_CODE_FILE);
  const code = file ? await firstLineOfCodeFile(file) : (env.SLOWDNS_INSTALL_CODE ?? '');
  if (code.trim() === '')
    throw new InstallCodeSourceError(
      file
        ? `the install code file ${file} is empty`
        : 'no install code: give codeFile, or set SLOWDNS_INSTALL_CODE or SLOWDNS_INSTALL_CODE_FILE',
    );
  return code.trim();
}

async function firstLineOfCodeFile(path: string): Promise<string> {
  // Checked and read through one open file, so the file checked is the file read.
  const handle = await open(path, 'r').catch((error: NodeJS.ErrnoException) => {
    throw new InstallCodeSourceError(`cannot read the install code file ${path} (${error.code ?? error.message})`);
  });
  try {
    const stats = await handle.stat();
    if (!stats.isFile()) throw new InstallCodeSourceError(`the install code file ${path} is not a regular file`);
    if ((stats.mode & 0o077) !== 0)
      throw new InstallCodeSourceError(
        `the install code file ${path} may be read or written by others (mode ${(stats.mode & 0o777).toString(8)}): chmod 600 it`,
      );
    const uid = process.getuid?.();
    if (uid !== undefined && stats.uid !== uid && stats.uid !== 0)
      throw new InstallCodeSourceError(
        `the install code file ${path} belongs to another user (uid ${stats.uid}): it must be yours or root's`,
      );
    return (await handle.readFile('utf8')).split('\n', 1)[0]!;
  } finally {
    await handle.close();
  }
}
