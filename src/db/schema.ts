import { sql } from 'drizzle-orm';
import { boolean, check, index, integer, jsonb, pgTable, primaryKey, text, timestamp } from 'drizzle-orm/pg-core';

const at = (name: string) => timestamp(name, { withTimezone: true, mode: 'date' });

/** `slowdns_browser` sessions; the cookie value is kept only as its SHA-256. */
export const browserSessions = pgTable(
  'browser_sessions',
  {
    tokenHash: text('token_hash').primaryKey(),
    createdAt: at('created_at').notNull(),
    expiresAt: at('expires_at').notNull(),
  },
  (t) => [index('browser_sessions_expires_at_idx').on(t.expiresAt)],
);

/** Install codes, stored as the SHA-256 of the normalised code plus the masked hint. */
export const installCodes = pgTable(
  'install_codes',
  {
    id: text('id').primaryKey(),
    codeHash: text('code_hash').notNull().unique(),
    hint: text('hint').notNull(),
    status: text('status', { enum: ['issued', 'activated', 'consumed'] }).notNull(),
    issuedAt: at('issued_at').notNull(),
    expiresAt: at('expires_at').notNull(),
  },
  (t) => [
    index('install_codes_expires_at_idx').on(t.expiresAt),
    check('install_codes_status_check', sql`${t.status} in ('issued', 'activated', 'consumed')`),
  ],
);

/** One activation per successful activate call; its install token is single-use (jti consumed on confirm). */
export const activations = pgTable(
  'activations',
  {
    id: text('id').primaryKey(),
    installCodeId: text('install_code_id')
      .notNull()
      .references(() => installCodes.id, { onDelete: 'cascade' }),
    status: text('status', { enum: ['activated', 'confirmed', 'released'] }).notNull(),
    hostname: text('hostname').notNull(),
    publicIp: text('public_ip').notNull(),
    machineId: text('machine_id').notNull(),
    sshFingerprint: text('ssh_fingerprint').notNull(),
    requestedRef: text('requested_ref').notNull(),
    installerVersion: text('installer_version').notNull(),
    installTokenJti: text('install_token_jti').notNull().unique(),
    installTokenExpiresAt: at('install_token_expires_at').notNull(),
    installTokenUsedAt: at('install_token_used_at'),
    /** What release answered, so that a repeated release answers the same. */
    codeRestored: boolean('code_restored'),
    createdAt: at('created_at').notNull(),
    confirmedAt: at('confirmed_at'),
    releasedAt: at('released_at'),
  },
  (t) => [
    index('activations_install_code_id_idx').on(t.installCodeId),
    check('activations_status_check', sql`${t.status} in ('activated', 'confirmed', 'released')`),
  ],
);

/** Fixed UTC-bucket counters: (limit, hashed subject, bucket start) → count. */
export const rateLimitBuckets = pgTable(
  'rate_limit_buckets',
  {
    limitName: text('limit_name').notNull(),
    subjectHash: text('subject_hash').notNull(),
    bucketStart: at('bucket_start').notNull(),
    count: integer('count').notNull(),
  },
  (t) => [primaryKey({ columns: [t.limitName, t.subjectHash, t.bucketStart] }), index('rate_limit_buckets_bucket_start_idx').on(t.bucketStart)],
);

/** Token signing keys made by the service itself when SIGNING_KEYS is not set; shared by every instance. */
export const signingKeys = pgTable('signing_keys', {
  kid: text('kid').primaryKey(),
  privateJwk: jsonb('private_jwk').notNull(),
  createdAt: at('created_at').notNull(),
});

/** Servers registered through the legacy `/register` route; the agent token is kept only as its SHA-256. */
export const servers = pgTable(
  'servers',
  {
    id: text('id').primaryKey(),
    activationId: text('activation_id')
      .notNull()
      .unique()
      .references(() => activations.id, { onDelete: 'cascade' }),
    agentTokenHash: text('agent_token_hash').notNull().unique(),
    hostname: text('hostname').notNull(),
    publicIp: text('public_ip').notNull(),
    machineId: text('machine_id').notNull(),
    sshFingerprint: text('ssh_fingerprint').notNull(),
    agentVersion: text('agent_version').notNull(),
    status: text('status', { enum: ['active', 'revoked'] }).notNull(),
    registeredAt: at('registered_at').notNull(),
    lastSeenAt: at('last_seen_at'),
    lastReport: jsonb('last_report'),
    revokedAt: at('revoked_at'),
  },
  (t) => [check('servers_status_check', sql`${t.status} in ('active', 'revoked')`)],
);
