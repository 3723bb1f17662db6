// deploy/slowdns.service, the unit docs/deployment.md installs: `systemd-analyze verify` (Debian's systemd)
// passes on it, and deploy/slowdns.sysusers.conf makes the user and group it runs as (made in a scratch
// root here, not on the machine). Runs in CI's container step (CONTAINER_TEST=1).
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const root = fileURLToPath(new URL('../..', import.meta.url));
const unit = join(root, 'deploy/slowdns.service');
const installed = spawnSync('sh', ['-c', 'command -v systemd-analyze && command -v systemd-sysusers']).status === 0;

describe.skipIf(process.env.CONTAINER_TEST !== '1' || !installed)('the systemd unit', () => {
  it('systemd-analyze verify reports nothing', () => {
    const verified = spawnSync('systemd-analyze', ['verify', unit], { encoding: 'utf8' });
    expect(verified.stdout + verified.stderr).toBe('');
    expect(verified.status).toBe(0);
  });

  it('its user and group are the ones slowdns.sysusers.conf makes, and its ExecStart names the built server', () => {
    const text = readFileSync(unit, 'utf8');
    const setting = (name: string) => new RegExp(`^${name}=(.*)$`, 'm').exec(text)?.[1];
    const scratch = mkdtempSync(join(tmpdir(), 'slowdns-sysusers-'));
    try {
      mkdirSync(join(scratch, 'etc'));
      execFileSync('systemd-sysusers', ['--root', scratch, '-'], {
        input: readFileSync(join(root, 'deploy/slowdns.sysusers.conf')),
        stdio: ['pipe', 'ignore', 'ignore'],
      });
      const passwd = readFileSync(join(scratch, 'etc/passwd'), 'utf8');
      const group = readFileSync(join(scratch, 'etc/group'), 'utf8');
      expect(passwd).toMatch(new RegExp(`^${setting('User')}:x:\\d+:\\d+:.*:/usr/sbin/nologin$`, 'm'));
      expect(group).toMatch(new RegExp(`^${setting('Group')}:x:\\d+:`, 'm'));
    } finally {
      rmSync(scratch, { recursive: true, force: true });
    }
    expect(setting('ExecStart')).toBe('/usr/bin/node --max-semi-space-size=16 dist/src/main.js');
    expect(setting('TimeoutStopSec')).toBe('15');
  });
});
