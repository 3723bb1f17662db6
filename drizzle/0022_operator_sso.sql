CREATE TABLE "oidc_flows" (
	"cookie_hash" text PRIMARY KEY NOT NULL,
	"state" text NOT NULL,
	"nonce" text NOT NULL,
	"code_verifier" text NOT NULL,
	"return_to" text NOT NULL,
	"created_at" timestamp with time zone NOT NULL,
	"expires_at" timestamp with time zone NOT NULL
);
--> statement-breakpoint
ALTER TABLE "console_sessions" DROP CONSTRAINT "console_sessions_scope_check";--> statement-breakpoint
ALTER TABLE "console_sessions" DROP CONSTRAINT "console_sessions_credential_check";--> statement-breakpoint
ALTER TABLE "console_sessions" ADD COLUMN "oidc_issuer" text;--> statement-breakpoint
ALTER TABLE "console_sessions" ADD COLUMN "oidc_subject" text;--> statement-breakpoint
ALTER TABLE "console_sessions" ADD COLUMN "oidc_email" text;--> statement-breakpoint
ALTER TABLE "console_sessions" ADD COLUMN "oidc_name" text;--> statement-breakpoint
ALTER TABLE "operator_tokens" ADD COLUMN "created_by" text;--> statement-breakpoint
CREATE INDEX "oidc_flows_expires_at_idx" ON "oidc_flows" USING btree ("expires_at");--> statement-breakpoint
ALTER TABLE "console_sessions" ADD CONSTRAINT "console_sessions_oidc_check" CHECK (("console_sessions"."oidc_subject" is null) = ("console_sessions"."oidc_issuer" is null));--> statement-breakpoint
ALTER TABLE "console_sessions" ADD CONSTRAINT "console_sessions_scope_check" CHECK ("console_sessions"."scope" in ('read', 'write', 'root'));--> statement-breakpoint
ALTER TABLE "console_sessions" ADD CONSTRAINT "console_sessions_credential_check" CHECK ((case when "console_sessions"."operator_token_id" is null then 0 else 1 end) + (case when "console_sessions"."root_token_hash" is null then 0 else 1 end) + (case when "console_sessions"."oidc_subject" is null then 0 else 1 end) = 1);