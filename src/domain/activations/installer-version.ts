import { ApiError } from '../../errors.js';

/** Installer versions are dotted dates with a trailing counter: `2026.11.20.1`. */
export const INSTALLER_VERSION_PATTERN = /^\d{4}\.\d{1,2}\.\d{1,2}\.\d{1,6}$/;

/** Numeric, part by part: `2026.11.9.1` is older than `2026.11.20.1`. */
function isOlderInstaller(version: string, minimum: string): boolean {
  const a = version.split('.').map(Number);
  const b = minimum.split('.').map(Number);
  for (let i = 0; i < Math.max(a.length, b.length); i++) {
    const diff = (a[i] ?? 0) - (b[i] ?? 0);
    if (diff !== 0) return diff < 0;
  }
  return false;
}

/** 426 `installer_outdated` when the operator set a minimum and this installer is below it. */
export function assertInstallerSupported(version: string, minimum: string | undefined): void {
  if (minimum && isOlderInstaller(version, minimum)) {
    throw new ApiError(
      'installer_outdated',
      `This installer (${version}) is older than ${minimum}, the oldest this service accepts. Download the current installer.`,
    );
  }
}
