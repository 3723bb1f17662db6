import { z } from '@hono/zod-openapi';
import { DatabaseUrlError, parseDatabaseUrl } from './db/database-url.js';
import { APPROVAL_POLICIES, type ApprovalPolicy } from './domain/install-codes/approval.js';
import { INSTALLER_VERSION_PATTERN } from './domain/activations/installer-version.js';
import { rateLimitProfiles, type RateLimitProfileName } from './domain/rate-limits/policies.js';
import { ConfigError } from './config-error.js';
import { durationSeconds } from './duration.js';
import { parseTrustProxy, type TrustProxy } from './domain/client-addresses.js';
import type { OidcSettings } from './domain/operators/oidc-settings.js';
import type { WebhookSafety } from './domain/webhooks/url-safety.js';
import { consolePublicUrl, OIDC_ENV, oidcSettings } from './config-oidc.js';

/** A lifetime: seconds, or a duration as `--ttl` takes one (`900`, `15m`, `12h`, `7d`; src/duration.ts). */
const seconds = (fallback: number) =>
  z
    .string()
    .optional()
    .transform((text, ctx) => {
      if (text === undefined) return fallback;
      const value = durationSeconds(text);
      if (value === undefined || value < 1 || value > 7 * 24 * 3600) {
        ctx.addIssue({
          code: 'custom',
          message: 'must be seconds or a duration such as 900, 15m, 12h or 7d, at most 7d',
        });
        return z.NEVER;
      }
      return value;
    });

/**
 * A validator's issue in plain words, never the value (a setting may be a secret): what the setting must be.
 * Messages written here (`.regex(…, 'must …')`, custom issues) pass as they are.
 */
function plainIssue(issue: z.core.$ZodIssue): string {
  if (issue.code === 'invalid_type')
    return issue.expected === 'number' || issue.expected === 'int'
      ? 'must be a whole number'
      : `must be a ${issue.expected}`;
  if (issue.code === 'too_small')
    return `must be ${issue.inclusive === false ? 'more than' : 'at least'} ${String(issue.minimum)}`;
  if (issue.code === 'too_big')
    return `must be ${issue.inclusive === false ? 'less than' : 'at most'} ${String(issue.maximum)}`;
  if (issue.code === 'invalid_value') return `must be one of ${issue.values.map(String).join(', ')}`;
  return issue.message;
}

/** libpq's URL form, one host or several (database-url.ts); the message never repeats the URL's password. */
const databaseUrl = (use: 'writes' | 'reads') =>
  z
    .string()
    .regex(/^postgres(ql)?:\/\//, 'must start with postgres:// or postgresql://')
    .superRefine((url, ctx) => {
      try {
        parseDatabaseUrl(url, { for: use });
      } catch (error) {
        if (!(error instanceof DatabaseUrlError)) throw error;
        ctx.addIssue({ code: 'custom', message: error.message });
      }
    })
    .optional();

const EnvSchema = z.object({
  PORT: z.coerce.number().int().min(0).max(65535).default(8080),
  HOST: z.string().min(1).default('0.0.0.0'),
  DATABASE_URL: databaseUrl('writes'),
  // Optional read replicas (DESIGN §21): admin lists, search, exports, object history, console views, fleet gauges.
  DATABASE_READ_URL: databaseUrl('reads'),
  DATABASE_READ_MAX_LAG_SECONDS: z.coerce.number().positive().max(3600).default(10),
  DATA_DIR: z.string().min(1).default('./data'),
  PUBLIC_BASE_URL: z.url({ protocol: /^https?$/ }).optional(),
  TRUST_PROXY: z.string().optional(),
  INSTALL_CODE_PREFIX: z
    .string()
    .regex(/^[A-Z0-9]{2,8}$/, 'must be 2 to 8 upper-case letters or digits')
    .refine((p) => p !== 'SD', 'must not be SD, the fixed second group')
    .default('SDNS'),
  INSTALL_CODE_TTL_SECONDS: seconds(900),
  PRECHECK_TOKEN_TTL_SECONDS: seconds(900),
  INSTALL_TOKEN_TTL_SECONDS: seconds(3600),
  BROWSER_SESSION_TTL_SECONDS: seconds(3600),
  SIGNING_KEYS: z.string().optional(),
  KEY_ENCRYPTION_KEY: z
    .string()
    .regex(
      /^[A-Za-z0-9_-]{43}$/,
      'must be 32 random bytes in base64url, 43 characters (npx slowdns keys generate prints one)',
    )
    .optional(),
  // Unset: true on PostgreSQL (its backups and replicas carry the keys), false on the embedded database.
  REQUIRE_KEY_ENCRYPTION: z.enum(['true', 'false'], { error: 'must be true or false' }).optional(),
  // The characters and length `bearerToken` (src/http/credentials.ts) reads from `Authorization`:
  // a token it could never match (a space, a non-ASCII letter) would silently disable operator actions.
  ADMIN_TOKEN: z
    .string()
    .regex(/^[\x21-\x7e]{32,512}$/, 'must be 32 to 512 printable ASCII characters without spaces')
    .optional(),
  MIN_INSTALLER_VERSION: z.string().regex(INSTALLER_VERSION_PATTERN, 'must look like 2026.11.20.1').optional(),
  METRICS_PORT: z.coerce.number().int().min(1).max(65535).optional(),
  METRICS_HOST: z.string().min(1).default('127.0.0.1'),
  CONSOLE_PORT: z.coerce.number().int().min(1).max(65535).optional(),
  CONSOLE_HOST: z.string().min(1).default('127.0.0.1'),
  EVENT_RETENTION_DAYS: z.coerce.number().int().positive().max(3650).default(90),
  SERVER_DEAD_AFTER_SECONDS: z.coerce
    .number()
    .int()
    .positive()
    .max(365 * 24 * 3600)
    .default(24 * 3600),
  RECEIPT_VERIFY_DAYS: z.coerce.number().int().positive().max(3650).default(365),
  DUPLICATE_MACHINE_POLICY: z.enum(['flag', 'refuse'], { error: 'must be flag or refuse' }).default('flag'),
  MACHINE_PROOF: z.enum(['optional', 'required'], { error: 'must be optional or required' }).default('optional'),
  RELEASE_REQUIRES_TOKEN: z.enum(['true', 'false'], { error: 'must be true or false' }).default('false'),
  APPROVAL_POLICY: z.enum(APPROVAL_POLICIES, { error: 'must be off, optional or required' }).default('optional'),
  LOG_LEVEL: z.enum(['debug', 'info', 'warn', 'error', 'silent']).default('info'),
  REQUEST_TIMEOUT_SECONDS: z.coerce.number().int().min(1).max(600).default(30),
  RATE_LIMIT_PROFILE: z
    .enum(['default', 'development'], { error: 'must be default or development' })
    .default('default'),
  RATE_LIMIT_PROFILE_FORCE: z.enum(['true', 'false'], { error: 'must be true or false' }).default('false'),
  // Read for one refusal only: the development rate limits never run where NODE_ENV says production.
  NODE_ENV: z.string().optional(),
  WEBHOOK_ALLOW_HTTP: z.enum(['true', 'false'], { error: 'must be true or false' }).default('false'),
  WEBHOOK_ALLOW_PRIVATE: z.enum(['true', 'false'], { error: 'must be true or false' }).default('false'),
  WEBHOOK_TIMEOUT_SECONDS: z.coerce.number().int().min(1).max(60).default(10),
  WEBHOOK_LEASE_SECONDS: z.coerce.number().int().min(2).max(3600).default(30),
  ...OIDC_ENV,
});

export type LogLevel = z.infer<typeof EnvSchema>['LOG_LEVEL'];

/** The service's settings, read once by `src/main.ts` and injected everywhere else. */
export interface Config {
  port: number;
  host: string;
  databaseUrl: string | undefined;
  /**
   * DATABASE_READ_URL: where the operators' reads go while the replica answers and lags at most
   * `maxLagSeconds` (src/db/read-replica.ts); undefined: every read goes to the primary.
   */
  readReplica: { url: string; maxLagSeconds: number } | undefined;
  dataDir: string;
  publicBaseUrl: URL;
  trustProxy: TrustProxy;
  installCodePrefix: string;
  installCodeTtlSeconds: number;
  precheckTokenTtlSeconds: number;
  installTokenTtlSeconds: number;
  browserSessionTtlSeconds: number;
  signingKeys: string | undefined;
  /** KEY_ENCRYPTION_KEY, decoded: private signing keys in the database are sealed under it. */
  keyEncryptionKey: Buffer | undefined;
  /** Refuse to keep a private signing key in clear in the database: by default on PostgreSQL, not on the embedded one. */
  requireKeyEncryption: boolean;
  adminToken: string | undefined;
  minInstallerVersion: string | undefined;
  /** Where `GET /metrics` listens; undefined: nowhere (metrics are still counted, at no cost worth naming). */
  metrics: { port: number; host: string } | undefined;
  /** Where the operator console (`/admin`) listens on its own; undefined: on the main listener, beside the API. */
  console: { port: number; host: string } | undefined;
  /** CONSOLE_PUBLIC_URL: the console's origin as browsers reach it (the sign-in's redirect URI, its cookies' security). */
  consolePublicUrl: URL;
  /** Sign-in with the identity provider (DESIGN §26); undefined: tokens only. */
  oidc: OidcSettings | undefined;
  /** CONSOLE_TOKEN_SIGN_IN: whether the console's token form is accepted (ADMIN_TOKEN stays the break-glass). */
  consoleTokenSignIn: boolean;
  /** Events older than this many days are pruned. */
  eventRetentionDays: number;
  /** A server not seen for this long is `dead` (its health, derived, never stored). */
  serverDeadAfterSeconds: number;
  /** A key that signed receipts stays in the JWKS this many days after its last receipt. */
  receiptVerifyDays: number;
  /** What activate does with a machine whose identity another install holds: flag it, or refuse a machine_id match (409). */
  duplicateMachinePolicy: 'flag' | 'refuse';
  /** Whether activate must prove the machine's SSH host key (DESIGN §24), or may. */
  machineProof: 'optional' | 'required';
  /** Release only with the install token (DESIGN §23): no token-less release from the install's address. */
  releaseRequiresToken: boolean;
  /** Whether the person approves each machine (DESIGN §14): never, when they ask for it at issue, or for every code. */
  approvalPolicy: ApprovalPolicy;
  logLevel: LogLevel;
  /** A request's headers and body must arrive within this (slow clients are cut). */
  requestTimeoutSeconds: number;
  /** RATE_LIMIT_PROFILE: the quotas the limiter counts against are the policies' times `quotaFactor`. */
  rateLimitProfile: { name: RateLimitProfileName; quotaFactor: number };
  /** Webhook targets: http allowed, private addresses allowed (metadata addresses never). */
  webhookSafety: { allowHttp: boolean; allowPrivate: boolean };
  /** Workload identity issuers (DESIGN §25), fetched under the webhooks' checks with IDENTITY_ISSUER_ALLOW_HTTP / _PRIVATE. */
  identityIssuerSafety: WebhookSafety;
  /** An attempt is cut after this; a lease outlives it, so it only expires when its instance is gone. */
  webhookDelivery: { timeoutMs: number; leaseMs: number };
}

/** Environment → typed config. Throws a ConfigError whose message is one line naming the variable. */
export function loadConfig(env: Record<string, string | undefined>): Config {
  const cleaned = Object.fromEntries(
    Object.keys(EnvSchema.shape).map((name) => [name, env[name] === '' ? undefined : env[name]]),
  );
  const parsed = EnvSchema.safeParse(cleaned);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    throw new ConfigError(`invalid ${String(issue.path[0])}: ${plainIssue(issue)}`);
  }
  const e = parsed.data;
  if (e.DATABASE_READ_URL !== undefined && e.DATABASE_URL === undefined)
    throw new ConfigError(
      'invalid DATABASE_READ_URL: the embedded database (no DATABASE_URL) has no replica; set DATABASE_URL to the primary, or unset DATABASE_READ_URL',
    );
  if (e.METRICS_PORT !== undefined && e.METRICS_PORT === e.PORT)
    throw new ConfigError('invalid METRICS_PORT: must differ from PORT');
  if (e.CONSOLE_PORT !== undefined && (e.CONSOLE_PORT === e.PORT || e.CONSOLE_PORT === e.METRICS_PORT))
    throw new ConfigError('invalid CONSOLE_PORT: must differ from PORT and METRICS_PORT');
  if (e.WEBHOOK_LEASE_SECONDS <= e.WEBHOOK_TIMEOUT_SECONDS)
    throw new ConfigError('invalid WEBHOOK_LEASE_SECONDS: must be longer than WEBHOOK_TIMEOUT_SECONDS');
  if (e.RATE_LIMIT_PROFILE === 'development' && e.NODE_ENV === 'production') {
    throw new ConfigError('invalid RATE_LIMIT_PROFILE: development is refused when NODE_ENV=production');
  }
  if (e.RATE_LIMIT_PROFILE === 'development' && e.DATABASE_URL !== undefined && e.RATE_LIMIT_PROFILE_FORCE !== 'true') {
    throw new ConfigError(
      'invalid RATE_LIMIT_PROFILE: development is refused on PostgreSQL (DATABASE_URL), it is for trying the service locally; set RATE_LIMIT_PROFILE_FORCE=true to use it there anyway',
    );
  }
  if (e.CONSOLE_TOKEN_SIGN_IN === 'false' && e.OIDC_ISSUER === undefined)
    throw new ConfigError(
      'invalid CONSOLE_TOKEN_SIGN_IN: false needs OIDC_ISSUER, else nobody could sign in to the console',
    );
  let trustProxy: TrustProxy;
  try {
    trustProxy = parseTrustProxy(e.TRUST_PROXY);
  } catch (err) {
    throw new ConfigError(`invalid TRUST_PROXY: ${(err as Error).message}`);
  }
  const consoleListener = e.CONSOLE_PORT === undefined ? undefined : { port: e.CONSOLE_PORT, host: e.CONSOLE_HOST };
  const publicBaseUrl = new URL(e.PUBLIC_BASE_URL ?? `http://localhost:${e.PORT}`);
  return {
    port: e.PORT,
    host: e.HOST,
    databaseUrl: e.DATABASE_URL,
    readReplica:
      e.DATABASE_READ_URL === undefined
        ? undefined
        : { url: e.DATABASE_READ_URL, maxLagSeconds: e.DATABASE_READ_MAX_LAG_SECONDS },
    dataDir: e.DATA_DIR,
    publicBaseUrl,
    trustProxy,
    installCodePrefix: e.INSTALL_CODE_PREFIX,
    installCodeTtlSeconds: e.INSTALL_CODE_TTL_SECONDS,
    precheckTokenTtlSeconds: e.PRECHECK_TOKEN_TTL_SECONDS,
    installTokenTtlSeconds: e.INSTALL_TOKEN_TTL_SECONDS,
    browserSessionTtlSeconds: e.BROWSER_SESSION_TTL_SECONDS,
    signingKeys: e.SIGNING_KEYS,
    keyEncryptionKey: e.KEY_ENCRYPTION_KEY === undefined ? undefined : Buffer.from(e.KEY_ENCRYPTION_KEY, 'base64url'),
    requireKeyEncryption:
      e.REQUIRE_KEY_ENCRYPTION === undefined ? e.DATABASE_URL !== undefined : e.REQUIRE_KEY_ENCRYPTION === 'true',
    adminToken: e.ADMIN_TOKEN,
    minInstallerVersion: e.MIN_INSTALLER_VERSION,
    metrics: e.METRICS_PORT === undefined ? undefined : { port: e.METRICS_PORT, host: e.METRICS_HOST },
    console: consoleListener,
    consolePublicUrl: consolePublicUrl(e.CONSOLE_PUBLIC_URL, publicBaseUrl, consoleListener),
    oidc: oidcSettings(e),
    consoleTokenSignIn: e.CONSOLE_TOKEN_SIGN_IN === 'true',
    eventRetentionDays: e.EVENT_RETENTION_DAYS,
    serverDeadAfterSeconds: e.SERVER_DEAD_AFTER_SECONDS,
    receiptVerifyDays: e.RECEIPT_VERIFY_DAYS,
    duplicateMachinePolicy: e.DUPLICATE_MACHINE_POLICY,
    machineProof: e.MACHINE_PROOF,
    releaseRequiresToken: e.RELEASE_REQUIRES_TOKEN === 'true',
    approvalPolicy: e.APPROVAL_POLICY,
    logLevel: e.LOG_LEVEL,
    requestTimeoutSeconds: e.REQUEST_TIMEOUT_SECONDS,
    rateLimitProfile: { name: e.RATE_LIMIT_PROFILE, quotaFactor: rateLimitProfiles[e.RATE_LIMIT_PROFILE] },
    webhookSafety: { allowHttp: e.WEBHOOK_ALLOW_HTTP === 'true', allowPrivate: e.WEBHOOK_ALLOW_PRIVATE === 'true' },
    webhookDelivery: { timeoutMs: e.WEBHOOK_TIMEOUT_SECONDS * 1000, leaseMs: e.WEBHOOK_LEASE_SECONDS * 1000 },
    identityIssuerSafety: {
      allowHttp: e.IDENTITY_ISSUER_ALLOW_HTTP === 'true',
      allowPrivate: e.IDENTITY_ISSUER_ALLOW_PRIVATE === 'true',
      switches: { http: 'IDENTITY_ISSUER_ALLOW_HTTP', private: 'IDENTITY_ISSUER_ALLOW_PRIVATE' },
    },
  };
}
