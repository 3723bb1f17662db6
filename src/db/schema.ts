import { sql } from 'drizzle-orm';
import {
  bigint,
  boolean,
  check,
  index,
  integer,
  jsonb,
  pgTable,
  primaryKey,
  text,
  timestamp,
  uniqueIndex,
} from 'drizzle-orm/pg-core';

/** A fleet code's `trust` block (DESIGN §25), as kept: what the operator wrote, checked at creation. */
export interface StoredTrust {
  issuer: string;
  audiences: string[];
  subject_pattern?: string;
  claims?: Record<string, string>;
  jwks?: { keys: Record<string, string>[] };
  tags_from_claims?: Record<string, string>;
  max_lifetime_seconds: number;
}

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

/**
 * Install codes, stored as the SHA-256 of the normalised code plus the masked hint. The id
 * (`ic_` + 16 hex) is the code's public handle: events, the admin API and the page name a code by it.
 */
export const installCodes = pgTable(
  'install_codes',
  {
    id: text('id').primaryKey(),
    codeHash: text('code_hash').notNull().unique(),
    hint: text('hint').notNull(),
    status: text('status', { enum: ['issued', 'activated', 'consumed', 'revoked'] }).notNull(),
    issuedAt: at('issued_at').notNull(),
    expiresAt: at('expires_at').notNull(),
    revokedAt: at('revoked_at'),
    /** SHA-256 of the `slowdns_browser` cookie that issued the code (as sessions are stored): whose page may watch and cancel it. */
    browserSessionHash: text('browser_session_hash'),
    /** The last successful precheck since the code was issued or restored: when, which machine, from which address. */
    precheckedAt: at('prechecked_at'),
    precheckMachineId: text('precheck_machine_id'),
    precheckSshFingerprint: text('precheck_ssh_fingerprint'),
    precheckIp: text('precheck_ip'),
    /**
     * Whether a machine waits for a decision on its precheck (DESIGN §14, §22): the decisions are kept on the
     * prechecks (`install_code_prechecks.decision`). A `uses: 1` code takes one, and is `revoked` too when denied.
     */
    requireApproval: boolean('require_approval').notNull().default(false),
    /**
     * Codes an operator issued (DESIGN §22): how many activations it may make (a page code: 1), how many are spent
     * (confirmed), when one was last taken, and what the operator bound it to. `operator` names who issued it
     * (null for a page code). A use is held, not stored, by an unconfirmed, unreleased activation whose install
     * token has not expired; `exhausted` is derived from the three.
     */
    uses: integer('uses').notNull().default(1),
    usesSpent: integer('uses_spent').notNull().default(0),
    lastUsedAt: at('last_used_at'),
    operator: text('operator'),
    description: text('description'),
    tags: jsonb('tags').$type<Record<string, string>>().notNull().default({}),
    allowedCidrs: text('allowed_cidrs').array(),
    hostnamePattern: text('hostname_pattern'),
    /** When `install_code.expiry_warned` was written for it (DESIGN §28): set in the statement that writes the event, so once. */
    expiryWarnedAt: at('expiry_warned_at'),
    /** A fleet code that admits only machines proving their SSH host key at activate (DESIGN §24). */
    requireMachineProof: boolean('require_machine_proof').notNull().default(false),
    /**
     * A code that trusts a platform's signed identity instead of a secret (DESIGN §25): the issuer, audiences,
     * rules and tag mapping, as the operator wrote them (keys normalised). Its code hash is of a code never shown.
     */
    trust: jsonb('trust').$type<StoredTrust>(),
  },
  (t) => [
    index('install_codes_expires_at_idx').on(t.expiresAt),
    index('install_codes_issued_at_idx').on(t.issuedAt, t.id),
    index('install_codes_browser_session_hash_idx').on(t.browserSessionHash),
    // The admin search: a part of the hint (`q`), through trigrams (pg_trgm); the start of an id is a range of the key.
    index('install_codes_search_idx').using('gin', t.hint.op('gin_trgm_ops')),
    check('install_codes_status_check', sql`${t.status} in ('issued', 'activated', 'consumed', 'revoked')`),
    check('install_codes_uses_check', sql`${t.uses} between 1 and 10000 and ${t.usesSpent} between 0 and ${t.uses}`),
  ],
);

/**
 * Each precheck of a code issued with approval (DESIGN §14): what the person sees before approving or
 * denying it, and the decision on it. The id (`pc_` + 16 hex) is carried in that precheck's token. A release
 * that restores the code deletes them: the person is asked again.
 */
export const installCodePrechecks = pgTable(
  'install_code_prechecks',
  {
    id: text('id').primaryKey(),
    installCodeId: text('install_code_id')
      .notNull()
      .references(() => installCodes.id, { onDelete: 'cascade' }),
    precheckedAt: at('prechecked_at').notNull(),
    ip: text('ip'),
    machineId: text('machine_id').notNull(),
    sshFingerprint: text('ssh_fingerprint').notNull(),
    installerVersion: text('installer_version').notNull(),
    /**
     * The decision on this precheck: null while it waits. A code with `uses` > 1 has one per precheck (DESIGN §22);
     * a `uses: 1` code at most one, on the precheck whose token alone may then activate it (§14).
     */
    decision: text('decision', { enum: ['approved', 'denied'] }),
    decidedAt: at('decided_at'),
  },
  (t) => [
    index('install_code_prechecks_install_code_id_idx').on(t.installCodeId, t.precheckedAt),
    check('install_code_prechecks_decision_check', sql`${t.decision} in ('approved', 'denied')`),
  ],
);

/**
 * Each workload identity token a precheck accepted (DESIGN §25), by its replay key (the `jti`, else the SHA-256 of
 * its header and payload), hashed: written in the precheck's transaction, so one token prechecks one machine.
 * Kept until the token's `exp` + 60 s.
 */
export const identityTokenUses = pgTable(
  'identity_token_uses',
  {
    replayKeyHash: text('replay_key_hash').primaryKey(),
    installCodeId: text('install_code_id')
      .notNull()
      .references(() => installCodes.id, { onDelete: 'cascade' }),
    machineId: text('machine_id').notNull(),
    sshFingerprint: text('ssh_fingerprint').notNull(),
    usedAt: at('used_at').notNull(),
    keepUntil: at('keep_until').notNull(),
  },
  (t) => [index('identity_token_uses_keep_until_idx').on(t.keepUntil)],
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
    /**
     * SHA-256 of the install token's jti: a database copy cannot rebuild a token from it. Compared once the
     * activation is found by its id, never looked up: no index (a random key in a million-row index cost
     * every activate a page of its own).
     */
    installTokenJtiHash: text('install_token_jti_hash').notNull(),
    installTokenExpiresAt: at('install_token_expires_at').notNull(),
    installTokenUsedAt: at('install_token_used_at'),
    /** SHA-256 of the jti of the precheck token that made it: a repeat of that activate gets this activation back. */
    precheckJtiHash: text('precheck_jti_hash'),
    /**
     * The hashed client key (`KeyedHashes.clientKey`) of the precheck whose token made it, carried in that token:
     * with the activate's own, the only addresses a token-less release proves itself by (DESIGN §23). Null for an
     * activation made before it was kept, or with a precheck token made before then.
     */
    precheckClientKeyHash: text('precheck_client_key_hash'),
    /** What release answered, so that a repeated release answers the same. */
    codeRestored: boolean('code_restored'),
    createdAt: at('created_at').notNull(),
    confirmedAt: at('confirmed_at'),
    releasedAt: at('released_at'),
    /** Set at activate: the activation whose machine identity this one shares (a cloned image; DESIGN §16). */
    duplicateOf: text('duplicate_of'),
    /** The code's tags, copied at activate (DESIGN §22). */
    tags: jsonb('tags').$type<Record<string, string>>().notNull().default({}),
    /**
     * The machine signed activate with the SSH host key whose fingerprint is `ssh_fingerprint` (DESIGN §24): the
     * fingerprint then names a key the machine holds, not a claim.
     */
    sshKeyProven: boolean('ssh_key_proven').notNull().default(false),
  },
  (t) => [
    index('activations_install_code_id_idx').on(t.installCodeId),
    // The duplicate check of activate looks both identities up.
    index('activations_machine_id_idx').on(t.machineId),
    index('activations_ssh_fingerprint_idx').on(t.sshFingerprint),
    index('activations_created_at_idx').on(t.createdAt, t.id),
    // The admin search: a part of the hostname (`q`, trigrams; the start of an id is a range of the key), an
    // address or network (`ip`, as inet).
    index('activations_search_idx').using('gin', t.hostname.op('gin_trgm_ops')),
    index('activations_public_ip_idx').on(sql`(${t.publicIp}::inet)`),
    // The gauge of activations awaiting confirm reads only the live install tokens (set at activate, never updated).
    index('activations_install_token_expires_at_idx').on(t.installTokenExpiresAt),
    check('activations_status_check', sql`${t.status} in ('activated', 'confirmed', 'released')`),
  ],
);

/**
 * Fixed UTC-bucket counters: (limit, hashed subject, bucket start) → count. A bucket never holds more
 * than its quota: the increment that would pass it fails the check, which undoes the whole statement
 * (every bucket of the request, and the change counted with them), so a refused request uses up no budget.
 */
export const rateLimitBuckets = pgTable(
  'rate_limit_buckets',
  {
    limitName: text('limit_name').notNull(),
    subjectHash: text('subject_hash').notNull(),
    bucketStart: at('bucket_start').notNull(),
    count: integer('count').notNull(),
    /** The policy's quota when the bucket was last counted; null on buckets counted before it was kept. */
    quota: integer('quota'),
  },
  (t) => [
    primaryKey({ columns: [t.limitName, t.subjectHash, t.bucketStart] }),
    index('rate_limit_buckets_bucket_start_idx').on(t.bucketStart),
    check('rate_limit_buckets_quota_check', sql`${t.count} <= ${t.quota}`),
  ],
);

/**
 * Token signing keys made by the service itself when SIGNING_KEYS is not set; shared by every instance.
 * The private key is sealed (AES-256-GCM under KEY_ENCRYPTION_KEY) or, without one, kept in clear;
 * a retired key keeps neither. The newest key whose signing has not ended signs.
 */
/**
 * The public half of every key that signed a receipt (from the database's keys or SIGNING_KEYS alike),
 * published in the JWKS for RECEIPT_VERIFY_DAYS after `last_signed_at` so a receipt verifies long after
 * its key left the token ring. Never a private key.
 */
export const receiptKeys = pgTable('receipt_keys', {
  kid: text('kid').primaryKey(),
  /** The Ed25519 public key, base64url. */
  publicKey: text('public_key').notNull(),
  firstSignedAt: at('first_signed_at').notNull(),
  /** Moved forward at most every minute while the key signs receipts: the last receipt is at most that much later. */
  lastSignedAt: at('last_signed_at').notNull(),
});

export const signingKeys = pgTable(
  'signing_keys',
  {
    kid: text('kid').primaryKey(),
    privateJwk: jsonb('private_jwk'),
    privateJwkSealed: text('private_jwk_sealed'),
    createdAt: at('created_at').notNull(),
    /** Rotation: from then on it only verifies, until every token it signed has expired. */
    signingEndedAt: at('signing_ended_at'),
    retiredAt: at('retired_at'),
  },
  (t) => [
    check(
      'signing_keys_private_key_check',
      sql`case when ${t.retiredAt} is null then (${t.privateJwk} is null) <> (${t.privateJwkSealed} is null) else ${t.privateJwk} is null and ${t.privateJwkSealed} is null end`,
    ),
  ],
);

/**
 * Servers registered through the legacy `/register` route; the agent token is kept only as its SHA-256.
 * Stored at fillfactor 80 (drizzle/0018, by hand: drizzle-kit has no storage parameters), so that a
 * check-in, which changes no indexed column, stays a HOT update on its page.
 */
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
    /** The addresses of the last two check-ins from different addresses (the last first): a copied agent alternates between two. */
    lastCheckinIp: text('last_checkin_ip'),
    previousCheckinIp: text('previous_checkin_ip'),
    /** Check-ins in a row that went back to the address before the last one (A → B → A …); a new third address resets it. */
    addressAlternations: integer('address_alternations').notNull().default(0),
    /** The activation's tags, copied at register (DESIGN §22). */
    tags: jsonb('tags').$type<Record<string, string>>().notNull().default({}),
    /**
     * The server's `checkin-server-hour` bucket: its start and the check-ins counted in it. Kept on the row
     * the check-in writes anyway, not in `rate_limit_buckets` (src/domain/servers/checkins.ts says why).
     */
    checkinBucketStart: at('checkin_bucket_start'),
    checkinCount: integer('checkin_count').notNull().default(0),
    /**
     * The health the notices last announced (DESIGN §28: `server.went_stale`, `server.went_dead`, `server.recovered`),
     * moved by the periodic pass in the statement that writes the event, so each transition is told once. Never
     * written by a check-in (which stays a HOT update).
     */
    notifiedHealth: text('notified_health', { enum: ['active', 'stale', 'dead'] })
      .notNull()
      .default('active'),
  },
  (t) => [
    index('servers_registered_at_idx').on(t.registeredAt, t.id),
    // The admin search by part of the hostname, as on activations. The machine's identities and address are
    // its activation's (copied at register, never changed): searched through the activations' indexes.
    index('servers_search_idx').using('gin', t.hostname.op('gin_trgm_ops')),
    check('servers_status_check', sql`${t.status} in ('active', 'revoked')`),
    check('servers_notified_health_check', sql`${t.notifiedHealth} in ('active', 'stale', 'dead')`),
  ],
);

/**
 * The event trail: one row per state change, written in the transaction of the change, so it never
 * disagrees with the state. It is also the outbox webhooks read: `delivered_at` stays null until the
 * event has been handed to the webhook deliveries of every endpoint then subscribed (src/domain/webhooks/dispatch.ts). The id is a sequence (newest = largest); subjects are plain ids, not foreign keys, so an
 * event outlives the pruning of what it names. Never a secret: hashes and public ids only.
 */
export const events = pgTable(
  'events',
  {
    id: bigint('id', { mode: 'number' }).generatedAlwaysAsIdentity(),
    type: text('type').notNull(),
    occurredAt: at('occurred_at').notNull(),
    actor: text('actor', { enum: ['installer', 'agent', 'operator', 'browser', 'service'] }).notNull(),
    installCodeId: text('install_code_id'),
    activationId: text('activation_id'),
    serverId: text('server_id'),
    requestId: text('request_id'),
    /** The client address key (the rate limits' per-IP subject), SHA-256 salted with `event`. */
    clientKeyHash: text('client_key_hash'),
    data: jsonb('data').notNull(),
    deliveredAt: at('delivered_at'),
  },
  (t) => [
    primaryKey({ columns: [t.id, t.occurredAt] }),
    index('events_occurred_at_idx').on(t.occurredAt),
    index('events_type_idx').on(t.type, t.id),
    index('events_install_code_id_idx').on(t.installCodeId),
    index('events_activation_id_idx').on(t.activationId),
    index('events_server_id_idx').on(t.serverId),
    index('events_undelivered_idx').on(t.id).where(sql`${t.deliveredAt} is null`),
    check('events_actor_check', sql`${t.actor} in ('installer', 'agent', 'operator', 'browser', 'service')`),
  ],
);

/**
 * An operator's override of one rate limit for one target: an IP address, a CIDR or a machine. It sets
 * the quota of the buckets it matches, never how they are counted; it applies until `expires_at` or
 * until it is removed (kept, with who removed it and why, for the list). At most one override per
 * limit and target is in place: a new one replaces it. `subject_key` is what the limiter's buckets are
 * counted under (an IPv6 address's /64; a CIDR's network), matched by the service in memory.
 */
export const rateLimitOverrides = pgTable(
  'rate_limit_overrides',
  {
    id: text('id').primaryKey(),
    subject: text('subject', { enum: ['ip', 'cidr', 'machine'] }).notNull(),
    value: text('value').notNull(),
    subjectKey: text('subject_key').notNull(),
    limitName: text('limit_name').notNull(),
    quota: integer('quota').notNull(),
    expiresAt: at('expires_at').notNull(),
    reason: text('reason').notNull(),
    createdAt: at('created_at').notNull(),
    /** The operator who set it: the operator token's name (`root` for ADMIN_TOKEN). */
    createdBy: text('created_by').notNull(),
    removedAt: at('removed_at'),
    removedBy: text('removed_by'),
    removalReason: text('removal_reason'),
  },
  (t) => [
    index('rate_limit_overrides_created_at_idx').on(t.createdAt, t.id),
    uniqueIndex('rate_limit_overrides_target_idx')
      .on(t.limitName, t.subject, t.subjectKey)
      .where(sql`${t.removedAt} is null`),
    check('rate_limit_overrides_subject_check', sql`${t.subject} in ('ip', 'cidr', 'machine')`),
    check('rate_limit_overrides_quota_check', sql`${t.quota} between 1 and 10000`),
  ],
);

/**
 * Webhook endpoints (src/domain/webhooks/). The URL (chat webhooks carry their credential in it) and the
 * secret are sealed under KEY_ENCRYPTION_KEY when one is set (`url_sealed`, `secret_sealed`), else kept in
 * clear where allowed: an HMAC key or a URL cannot be kept as a hash. During a rotation the previous
 * secret signs too, until `previous_secret_expires_at`. A chat endpoint (`format` other than `standard`,
 * DESIGN §28) has no secret.
 */
/** An event type an endpoint asks for, or `*`. */
export type WebhookEventFilter = '*' | `${string}.${string}`;

export const webhookEndpoints = pgTable(
  'webhook_endpoints',
  {
    id: text('id').primaryKey(),
    url: text('url'),
    urlSealed: text('url_sealed'),
    urlHost: text('url_host').notNull(),
    /** What a message looks like: `standard` (Standard Webhooks, signed) or a chat platform's incoming-webhook JSON. */
    format: text('format', { enum: ['standard', 'slack', 'discord', 'teams', 'google_chat'] })
      .notNull()
      .default('standard'),
    /** No attempt before then: a chat endpoint's next message (one a minute), or a 429's `Retry-After`. */
    sendAfter: at('send_after'),
    description: text('description'),
    /** Event types, or `["*"]` for all. */
    eventTypes: jsonb('event_types').$type<WebhookEventFilter[]>().notNull(),
    secret: text('secret'),
    secretSealed: text('secret_sealed'),
    previousSecret: text('previous_secret'),
    previousSecretSealed: text('previous_secret_sealed'),
    previousSecretExpiresAt: at('previous_secret_expires_at'),
    status: text('status', { enum: ['enabled', 'paused', 'disabled'] }).notNull(),
    createdAt: at('created_at').notNull(),
    /** Since when every attempt has failed (null after a success): five days of it disable the endpoint. */
    failingSince: at('failing_since'),
    lastSuccessAt: at('last_success_at'),
    lastFailureAt: at('last_failure_at'),
    disabledAt: at('disabled_at'),
  },
  (t) => [
    check('webhook_endpoints_status_check', sql`${t.status} in ('enabled', 'paused', 'disabled')`),
    check(
      'webhook_endpoints_secret_check',
      sql`case when ${t.format} = 'standard' then (${t.secret} is null) <> (${t.secretSealed} is null) else ${t.secret} is null and ${t.secretSealed} is null end`,
    ),
    check('webhook_endpoints_url_check', sql`(${t.url} is null) <> (${t.urlSealed} is null)`),
    check(
      'webhook_endpoints_format_check',
      sql`${t.format} in ('standard', 'slack', 'discord', 'teams', 'google_chat')`,
    ),
  ],
);

/**
 * One message to one endpoint: an event (or a test message), its body fixed when it is made so every
 * attempt sends the same bytes under the same `webhook-id`. `leased_until`/`lease_id`: the instance
 * attempting it right now (claimed with FOR UPDATE SKIP LOCKED, released after the attempt).
 */
export const webhookDeliveries = pgTable(
  'webhook_deliveries',
  {
    id: text('id').primaryKey(),
    endpointId: text('endpoint_id')
      .notNull()
      .references(() => webhookEndpoints.id, { onDelete: 'cascade' }),
    eventId: bigint('event_id', { mode: 'number' }),
    messageId: text('message_id').notNull(),
    eventType: text('event_type').notNull(),
    payload: text('payload').notNull(),
    status: text('status', { enum: ['pending', 'delivered', 'failed'] }).notNull(),
    attempts: integer('attempts').notNull().default(0),
    nextAttemptAt: at('next_attempt_at').notNull(),
    leasedUntil: at('leased_until'),
    leaseId: text('lease_id'),
    createdAt: at('created_at').notNull(),
    lastAttemptAt: at('last_attempt_at'),
    deliveredAt: at('delivered_at'),
  },
  (t) => [
    uniqueIndex('webhook_deliveries_endpoint_event_idx').on(t.endpointId, t.eventId),
    index('webhook_deliveries_due_idx').on(t.nextAttemptAt).where(sql`${t.status} = 'pending'`),
    index('webhook_deliveries_endpoint_created_idx').on(t.endpointId, t.createdAt),
    index('webhook_deliveries_created_idx').on(t.createdAt),
    check('webhook_deliveries_status_check', sql`${t.status} in ('pending', 'delivered', 'failed')`),
  ],
);

/** Each attempt of a delivery: when, how long, the status code or the network error, a short excerpt of the answer. */
export const webhookAttempts = pgTable(
  'webhook_attempts',
  {
    id: bigint('id', { mode: 'number' }).primaryKey().generatedAlwaysAsIdentity(),
    deliveryId: text('delivery_id')
      .notNull()
      .references(() => webhookDeliveries.id, { onDelete: 'cascade' }),
    attemptedAt: at('attempted_at').notNull(),
    durationMs: integer('duration_ms').notNull(),
    statusCode: integer('status_code'),
    error: text('error'),
    responseExcerpt: text('response_excerpt'),
  },
  (t) => [index('webhook_attempts_delivery_idx').on(t.deliveryId, t.attemptedAt)],
);

/**
 * Named operator tokens: each acts on the admin API as its `name` with its `scope`. Only the SHA-256
 * of the token is kept; the token itself is shown once, when it is made. `last_used_at` is written at
 * most once a minute per token, so that a busy dashboard does not write on every request.
 */
export const operatorTokens = pgTable(
  'operator_tokens',
  {
    id: text('id').primaryKey(),
    name: text('name').notNull(),
    scope: text('scope', { enum: ['read', 'write'] }).notNull(),
    tokenHash: text('token_hash').notNull(),
    createdAt: at('created_at').notNull(),
    expiresAt: at('expires_at'),
    lastUsedAt: at('last_used_at'),
    revokedAt: at('revoked_at'),
    /** Who made it: `root` (ADMIN_TOKEN), or the SSO operator who minted it in the console (their email, else `sub`). */
    createdBy: text('created_by'),
    /** When `operator_token.expiry_warned` was written for it (DESIGN §28), in the same statement. */
    expiryWarnedAt: at('expiry_warned_at'),
  },
  (t) => [
    uniqueIndex('operator_tokens_token_hash_idx').on(t.tokenHash),
    index('operator_tokens_created_at_idx').on(t.createdAt, t.id),
    check('operator_tokens_scope_check', sql`${t.scope} in ('read', 'write')`),
  ],
);

/**
 * Sessions of the operator console (`GET /admin`): signed in with an operator token, never holding it.
 * The cookie is kept only as its SHA-256. A named token's session ends when the token is revoked or
 * expires (read through `operator_token_id` at every request); a `root` session (ADMIN_TOKEN) keeps the
 * SHA-256 of the token it was opened with, and ends when ADMIN_TOKEN changes.
 */
export const consoleSessions = pgTable(
  'console_sessions',
  {
    tokenHash: text('token_hash').primaryKey(),
    operator: text('operator').notNull(),
    /** `root` only for an SSO operator mapped to it (DESIGN §26): write, plus operator tokens and sessions. */
    scope: text('scope', { enum: ['read', 'write', 'root'] }).notNull(),
    operatorTokenId: text('operator_token_id').references(() => operatorTokens.id, { onDelete: 'cascade' }),
    rootTokenHash: text('root_token_hash'),
    /** An SSO operator (DESIGN §26): the issuer and `sub` of their ID token, with the email and name it gave. */
    oidcIssuer: text('oidc_issuer'),
    oidcSubject: text('oidc_subject'),
    oidcEmail: text('oidc_email'),
    oidcName: text('oidc_name'),
    createdAt: at('created_at').notNull(),
    lastSeenAt: at('last_seen_at').notNull(),
    /** The absolute end: `created_at` plus the longest a session lasts, whatever its use. */
    expiresAt: at('expires_at').notNull(),
  },
  (t) => [
    index('console_sessions_expires_at_idx').on(t.expiresAt),
    index('console_sessions_operator_token_id_idx').on(t.operatorTokenId),
    check('console_sessions_scope_check', sql`${t.scope} in ('read', 'write', 'root')`),
    check(
      'console_sessions_credential_check',
      sql`(case when ${t.operatorTokenId} is null then 0 else 1 end) + (case when ${t.rootTokenHash} is null then 0 else 1 end) + (case when ${t.oidcSubject} is null then 0 else 1 end) = 1`,
    ),
    check('console_sessions_oidc_check', sql`(${t.oidcSubject} is null) = (${t.oidcIssuer} is null)`),
  ],
);

/**
 * The single-use tokens of the console's create forms (DESIGN §22), kept as their hash once used: a form
 * sent twice makes one code at most. Deleted with their session.
 */
/**
 * A sign-in with the identity provider under way (DESIGN §26): keyed by the hash of its `SameSite=Lax` cookie,
 * taken (deleted) once by the callback, good for 10 minutes. `state`, `nonce` and the PKCE verifier never
 * leave the service but in the authorization request's hashes and echoes.
 */
export const oidcFlows = pgTable(
  'oidc_flows',
  {
    cookieHash: text('cookie_hash').primaryKey(),
    state: text('state').notNull(),
    nonce: text('nonce').notNull(),
    codeVerifier: text('code_verifier').notNull(),
    /** The console view to open once signed in. */
    returnTo: text('return_to').notNull(),
    createdAt: at('created_at').notNull(),
    expiresAt: at('expires_at').notNull(),
  },
  (t) => [index('oidc_flows_expires_at_idx').on(t.expiresAt)],
);

export const consoleFormClaims = pgTable(
  'console_form_claims',
  {
    tokenHash: text('token_hash').primaryKey(),
    sessionTokenHash: text('session_token_hash')
      .notNull()
      .references(() => consoleSessions.tokenHash, { onDelete: 'cascade' }),
    claimedAt: at('claimed_at').notNull(),
  },
  (t) => [index('console_form_claims_session_token_hash_idx').on(t.sessionTokenHash)],
);

/**
 * The Idempotency-Key of each admin POST (DESIGN §27), written first in the transaction of the change it
 * guards and holding that change's committed 2xx answer: a repeat answers it again. The key (with the
 * credential, method and path it is scoped to) is kept only as a keyed hash, the answer only sealed under a
 * key derived from the KEK and the Idempotency-Key itself. Pruned after `expires_at`.
 */
export const idempotencyKeys = pgTable(
  'idempotency_keys',
  {
    keyHash: text('key_hash').primaryKey(),
    /** SHA-256 of the path, the sorted query and the body in RFC 8785 form: another request under the key is refused. */
    fingerprint: text('fingerprint').notNull(),
    /** The stored answer's status and its sealed body; null only inside the transaction that writes them. */
    status: integer('status'),
    sealedAnswer: text('sealed_answer'),
    createdAt: at('created_at').notNull(),
    expiresAt: at('expires_at').notNull(),
  },
  (t) => [index('idempotency_keys_expires_at_idx').on(t.expiresAt)],
);

/**
 * The periodic pass of notices (src/domain/notices/): when it last ran on any instance, and the last gap
 * between two passes long enough to be the service's own downtime, whose silence no server is blamed for.
 */
export const noticeWatch = pgTable('notice_watch', {
  name: text('name').primaryKey(),
  lastPassAt: at('last_pass_at').notNull(),
  downFrom: at('down_from'),
  downUntil: at('down_until'),
});
