import { describe, expect, it } from 'vitest';
import { ConfigError } from '../../src/config-error.js';
import { loadConfig } from '../../src/config.js';

describe('configuration', () => {
  it('has the documented defaults', () => {
    const c = loadConfig({});
    expect(c).toMatchObject({
      port: 8080,
      host: '0.0.0.0',
      databaseUrl: undefined,
      dataDir: './data',
      installCodePrefix: 'SDNS',
      installCodeTtlSeconds: 900,
      precheckTokenTtlSeconds: 900,
      installTokenTtlSeconds: 3600,
      browserSessionTtlSeconds: 3600,
      logLevel: 'info',
      machineProof: 'optional',
      webhookDelivery: { timeoutMs: 10_000, leaseMs: 30_000 },
    });
    expect(c.publicBaseUrl.origin).toBe('http://localhost:8080');
    expect(c.trustProxy.kind).toBe('none');
  });

  it.each([
    ['PORT', 'eighty'],
    ['DATABASE_URL', 'mysql://x'],
    ['INSTALL_CODE_PREFIX', 'sd-ns'],
    ['INSTALL_CODE_TTL_SECONDS', '-5'],
    ['TRUST_PROXY', 'proxy.example'],
    ['MIN_INSTALLER_VERSION', '1.2'],
    ['LOG_LEVEL', 'loud'],
    ['PUBLIC_BASE_URL', 'ftp://x'],
    ['ADMIN_TOKEN', 'short'],
    ['ADMIN_TOKEN', 'a token with spaces that is long enough to pass'],
    ['ADMIN_TOKEN', 'é'.repeat(40)],
    ['ADMIN_TOKEN', 'x'.repeat(513)],
    ['KEY_ENCRYPTION_KEY', 'too-short'],
    ['KEY_ENCRYPTION_KEY', Buffer.alloc(32).toString('base64')],
    ['REQUIRE_KEY_ENCRYPTION', 'yes'],
    ['WEBHOOK_TIMEOUT_SECONDS', '0'],
    ['WEBHOOK_LEASE_SECONDS', '10'],
    ['MACHINE_PROOF', 'always'],
  ])('refuses a bad %s with one line naming it', (name, value) => {
    expect(() => loadConfig({ [name]: value })).toThrow(ConfigError);
    expect(() => loadConfig({ [name]: value })).toThrow(new RegExp(`^invalid ${name}: [^\\n]+$`));
  });

  it.each([
    ['PORT', 'abc', 'invalid PORT: must be a whole number'],
    ['PORT', '70000', 'invalid PORT: must be at most 65535'],
    ['APPROVAL_POLICY', 'maybe', 'invalid APPROVAL_POLICY: must be one of off, optional, required'],
    [
      'INSTALL_CODE_TTL_SECONDS',
      '15x',
      'invalid INSTALL_CODE_TTL_SECONDS: must be seconds or a duration such as 900, 15m, 12h or 7d, at most 7d',
    ],
  ])('says what %s=%s must be in plain words, not the validator’s', (name, value, message) => {
    expect(() => loadConfig({ [name]: value })).toThrow(new Error(message));
  });

  it('takes a lifetime as seconds or as a duration, the way the command’s --ttl does', () => {
    expect(loadConfig({ INSTALL_CODE_TTL_SECONDS: '15m' }).installCodeTtlSeconds).toBe(900);
    expect(loadConfig({ INSTALL_TOKEN_TTL_SECONDS: '2h' }).installTokenTtlSeconds).toBe(7200);
    expect(loadConfig({ PRECHECK_TOKEN_TTL_SECONDS: '600' }).precheckTokenTtlSeconds).toBe(600);
  });

  it('DATABASE_READ_URL: a replica list for reads, with its lag limit (10 s by default)', () => {
    const c = loadConfig({
      DATABASE_URL: 'postgres://u@primary/db',
      DATABASE_READ_URL: 'postgres://u@replica1,replica2/db?target_session_attrs=prefer-standby',
    });
    expect(c.readReplica).toEqual({
      url: 'postgres://u@replica1,replica2/db?target_session_attrs=prefer-standby',
      maxLagSeconds: 10,
    });
    expect(loadConfig({}).readReplica).toBeUndefined();
  });

  it('DATABASE_READ_URL with the embedded database is a configuration error', () => {
    expect(() => loadConfig({ DATABASE_READ_URL: 'postgres://u@replica/db' })).toThrow(
      /^invalid DATABASE_READ_URL: the embedded database \(no DATABASE_URL\) has no replica/,
    );
  });

  it('DATABASE_READ_URL refuses a target_session_attrs reads cannot use, and DATABASE_URL refuses standby ones', () => {
    expect(() =>
      loadConfig({
        DATABASE_URL: 'postgres://u@p/db',
        DATABASE_READ_URL: 'postgres://u@r/db?target_session_attrs=read-write',
      }),
    ).toThrow(/^invalid DATABASE_READ_URL: target_session_attrs must be one of any, prefer-standby, standby$/);
    expect(() => loadConfig({ DATABASE_URL: 'postgres://u@p/db?target_session_attrs=prefer-standby' })).toThrow(
      /^invalid DATABASE_URL: target_session_attrs must be one of any, read-write, primary/,
    );
  });

  it('KEY_ENCRYPTION_KEY is 32 bytes in base64url', () => {
    const kek = Buffer.alloc(32, 0xfb);
    expect(loadConfig({ KEY_ENCRYPTION_KEY: kek.toString('base64url'), REQUIRE_KEY_ENCRYPTION: 'true' })).toMatchObject(
      { keyEncryptionKey: kek, requireKeyEncryption: true },
    );
  });

  it('without KEY_ENCRYPTION_KEY nothing demands encryption', () => {
    expect(loadConfig({})).toMatchObject({ keyEncryptionKey: undefined, requireKeyEncryption: false });
  });

  it('REQUIRE_KEY_ENCRYPTION is true by default on PostgreSQL (DATABASE_URL) and false on the embedded database', () => {
    expect(loadConfig({}).requireKeyEncryption).toBe(false);
    expect(loadConfig({ DATABASE_URL: 'postgres://db.example/slowdns' }).requireKeyEncryption).toBe(true);
  });

  it('REQUIRE_KEY_ENCRYPTION set wins over the default: false is the explicit opt-out on PostgreSQL', () => {
    expect(
      loadConfig({ DATABASE_URL: 'postgres://db.example/slowdns', REQUIRE_KEY_ENCRYPTION: 'false' })
        .requireKeyEncryption,
    ).toBe(false);
    expect(loadConfig({ REQUIRE_KEY_ENCRYPTION: 'true' }).requireKeyEncryption).toBe(true);
  });

  it('RATE_LIMIT_PROFILE: development multiplies every quota by 100', () => {
    expect(loadConfig({}).rateLimitProfile).toEqual({ name: 'default', quotaFactor: 1 });
    expect(loadConfig({ RATE_LIMIT_PROFILE: 'development' }).rateLimitProfile).toEqual({
      name: 'development',
      quotaFactor: 100,
    });
  });

  it('RATE_LIMIT_PROFILE=development is refused with NODE_ENV=production, even forced', () => {
    expect(() => loadConfig({ RATE_LIMIT_PROFILE: 'development', NODE_ENV: 'production' })).toThrow(
      new ConfigError('invalid RATE_LIMIT_PROFILE: development is refused when NODE_ENV=production'),
    );
    expect(() =>
      loadConfig({ RATE_LIMIT_PROFILE: 'development', NODE_ENV: 'production', RATE_LIMIT_PROFILE_FORCE: 'true' }),
    ).toThrow(/^invalid RATE_LIMIT_PROFILE: /);
  });

  it('RATE_LIMIT_PROFILE=development is refused on PostgreSQL unless forced', () => {
    const postgres = { RATE_LIMIT_PROFILE: 'development', DATABASE_URL: 'postgres://db.example/slowdns' };
    expect(() => loadConfig(postgres)).toThrow(
      /^invalid RATE_LIMIT_PROFILE: development is refused on PostgreSQL \(DATABASE_URL\)[^\n]*RATE_LIMIT_PROFILE_FORCE=true[^\n]*$/,
    );
    expect(loadConfig({ ...postgres, RATE_LIMIT_PROFILE_FORCE: 'true' }).rateLimitProfile).toEqual({
      name: 'development',
      quotaFactor: 100,
    });
  });

  it('RATE_LIMIT_PROFILE and RATE_LIMIT_PROFILE_FORCE refuse a value they do not know', () => {
    expect(() => loadConfig({ RATE_LIMIT_PROFILE: 'dev' })).toThrow(/^invalid RATE_LIMIT_PROFILE: /);
    expect(() => loadConfig({ RATE_LIMIT_PROFILE_FORCE: 'yes' })).toThrow(/^invalid RATE_LIMIT_PROFILE_FORCE: /);
  });

  it('accepts an ADMIN_TOKEN that a Bearer header can carry', () => {
    const token = `!~${'A'.repeat(508)}z9`;
    expect(loadConfig({ ADMIN_TOKEN: token }).adminToken).toBe(token);
  });
});
