CREATE TABLE "activations" (
	"id" text PRIMARY KEY NOT NULL,
	"install_code_id" text NOT NULL,
	"status" text NOT NULL,
	"hostname" text NOT NULL,
	"public_ip" text NOT NULL,
	"machine_id" text NOT NULL,
	"ssh_fingerprint" text NOT NULL,
	"requested_ref" text NOT NULL,
	"installer_version" text NOT NULL,
	"install_token_jti" text NOT NULL,
	"install_token_expires_at" timestamp with time zone NOT NULL,
	"install_token_used_at" timestamp with time zone,
	"code_restored" boolean,
	"created_at" timestamp with time zone NOT NULL,
	"confirmed_at" timestamp with time zone,
	"released_at" timestamp with time zone,
	CONSTRAINT "activations_install_token_jti_unique" UNIQUE("install_token_jti"),
	CONSTRAINT "activations_status_check" CHECK ("activations"."status" in ('activated', 'confirmed', 'released'))
);
--> statement-breakpoint
CREATE TABLE "browser_sessions" (
	"token_hash" text PRIMARY KEY NOT NULL,
	"created_at" timestamp with time zone NOT NULL,
	"expires_at" timestamp with time zone NOT NULL
);
--> statement-breakpoint
CREATE TABLE "install_codes" (
	"id" text PRIMARY KEY NOT NULL,
	"code_hash" text NOT NULL,
	"hint" text NOT NULL,
	"status" text NOT NULL,
	"issued_at" timestamp with time zone NOT NULL,
	"expires_at" timestamp with time zone NOT NULL,
	CONSTRAINT "install_codes_code_hash_unique" UNIQUE("code_hash"),
	CONSTRAINT "install_codes_status_check" CHECK ("install_codes"."status" in ('issued', 'activated', 'consumed'))
);
--> statement-breakpoint
CREATE TABLE "rate_limit_buckets" (
	"limit_name" text NOT NULL,
	"subject_hash" text NOT NULL,
	"bucket_start" timestamp with time zone NOT NULL,
	"count" integer NOT NULL,
	CONSTRAINT "rate_limit_buckets_limit_name_subject_hash_bucket_start_pk" PRIMARY KEY("limit_name","subject_hash","bucket_start")
);
--> statement-breakpoint
CREATE TABLE "servers" (
	"id" text PRIMARY KEY NOT NULL,
	"activation_id" text NOT NULL,
	"agent_token_hash" text NOT NULL,
	"hostname" text NOT NULL,
	"public_ip" text NOT NULL,
	"machine_id" text NOT NULL,
	"ssh_fingerprint" text NOT NULL,
	"agent_version" text NOT NULL,
	"status" text NOT NULL,
	"registered_at" timestamp with time zone NOT NULL,
	"last_seen_at" timestamp with time zone,
	"last_report" jsonb,
	"revoked_at" timestamp with time zone,
	CONSTRAINT "servers_activation_id_unique" UNIQUE("activation_id"),
	CONSTRAINT "servers_agent_token_hash_unique" UNIQUE("agent_token_hash"),
	CONSTRAINT "servers_status_check" CHECK ("servers"."status" in ('active', 'revoked'))
);
--> statement-breakpoint
CREATE TABLE "signing_keys" (
	"kid" text PRIMARY KEY NOT NULL,
	"private_jwk" jsonb NOT NULL,
	"created_at" timestamp with time zone NOT NULL
);
--> statement-breakpoint
ALTER TABLE "activations" ADD CONSTRAINT "activations_install_code_id_install_codes_id_fk" FOREIGN KEY ("install_code_id") REFERENCES "public"."install_codes"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "servers" ADD CONSTRAINT "servers_activation_id_activations_id_fk" FOREIGN KEY ("activation_id") REFERENCES "public"."activations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "activations_install_code_id_idx" ON "activations" USING btree ("install_code_id");--> statement-breakpoint
CREATE INDEX "browser_sessions_expires_at_idx" ON "browser_sessions" USING btree ("expires_at");--> statement-breakpoint
CREATE INDEX "install_codes_expires_at_idx" ON "install_codes" USING btree ("expires_at");--> statement-breakpoint
CREATE INDEX "rate_limit_buckets_bucket_start_idx" ON "rate_limit_buckets" USING btree ("bucket_start");