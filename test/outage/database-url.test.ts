import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { describeDatabaseUrl, hostUrl, parseDatabaseUrl } from '../../src/db/database-url.js';

const showUri =
  'postgres://autoctl_node@127.0.0.1:6001,127.0.0.1:6002/app?target_session_attrs=read-write&sslmode=prefer';

describe('DATABASE_URL in libpq form', () => {
  it('reads the host list pg_autoctl show uri prints, with target_session_attrs and sslmode', () => {
    const url = parseDatabaseUrl(showUri);
    expect(url.hosts).toEqual([
      { host: '127.0.0.1', port: 6001 },
      { host: '127.0.0.1', port: 6002 },
    ]);
    expect(url.targetSessionAttrs).toBe('read-write');
    expect(url.sslmode).toBe('prefer');
    expect(describeDatabaseUrl(url)).toBe('postgres://127.0.0.1:6001,127.0.0.1:6002/app');
  });

  it('gives each host as a single-host URL with libpq sslmode meanings, and plain after a refused TLS', () => {
    const url = parseDatabaseUrl(showUri);
    expect(hostUrl(url, url.hosts[1]!)).toBe(
      'postgres://autoctl_node@127.0.0.1:6002/app?sslmode=prefer&uselibpqcompat=true',
    );
    expect(hostUrl(url, url.hosts[1]!, { plain: true })).toBe(
      'postgres://autoctl_node@127.0.0.1:6002/app?sslmode=disable',
    );
  });

  it('keeps one host as today: any, no TLS unless asked, other parameters passed through', () => {
    const url = parseDatabaseUrl('postgresql://u:p%40ss@db.example:6432/app?application_name=x');
    expect(url.targetSessionAttrs).toBe('any');
    expect(url.sslmode).toBeUndefined();
    expect(hostUrl(url, url.hosts[0]!)).toBe('postgresql://u:p%40ss@db.example:6432/app?application_name=x');
    expect(parseDatabaseUrl('postgres://u@db/app').hosts).toEqual([{ host: 'db', port: 5432 }]);
  });

  it('reads bracketed IPv6 hosts and the primary attribute', () => {
    const url = parseDatabaseUrl('postgres://u@[::1]:5433,[fd00::2]/app?target_session_attrs=primary');
    expect(url.hosts).toEqual([
      { host: '::1', port: 5433 },
      { host: 'fd00::2', port: 5432 },
    ]);
    expect(url.targetSessionAttrs).toBe('primary');
    expect(hostUrl(url, url.hosts[0]!)).toBe('postgres://u@[::1]:5433/app');
  });

  it('refuses what it cannot honour, in one line that never repeats the password', () => {
    const start = (DATABASE_URL: string) => () => loadConfig({ DATABASE_URL });
    expect(start('postgres://u:secret@h1,h2/app?target_session_attrs=any')).toThrow(/DATABASE_URL.*read-write/);
    expect(start('postgres://u:secret@h1/app?target_session_attrs=standby')).toThrow(/target_session_attrs/);
    expect(start('postgres://u:secret@h1/app?sslmode=maybe')).toThrow(/sslmode must be one of/);
    expect(start('postgres://u:secret@h1:99999/app')).toThrow(/bad port/);
    expect(start('postgres://u:secret@h1:99999/app')).not.toThrow(/secret/);
    expect(loadConfig({ DATABASE_URL: showUri }).databaseUrl).toBe(showUri);
  });
});
