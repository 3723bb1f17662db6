CREATE TABLE "console_sessions" (
	"token_hash" text PRIMARY KEY NOT NULL,
	"operator" text NOT NULL,
	"scope" text NOT NULL,
	"operator_token_id" text,
	"root_token_hash" text,
	"created_at" timestamp with time zone NOT NULL,
	"last_seen_at" timestamp with time zone NOT NULL,
	"expires_at" timestamp with time zone NOT NULL,
	CONSTRAINT "console_sessions_scope_check" CHECK ("console_sessions"."scope" in ('read', 'write')),
	CONSTRAINT "console_sessions_credential_check" CHECK (("console_sessions"."operator_token_id" is null) <> ("console_sessions"."root_token_hash" is null))
);
--> statement-breakpoint
ALTER TABLE "console_sessions" ADD CONSTRAINT "console_sessions_operator_token_id_operator_tokens_id_fk" FOREIGN KEY ("operator_token_id") REFERENCES "public"."operator_tokens"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "console_sessions_expires_at_idx" ON "console_sessions" USING btree ("expires_at");--> statement-breakpoint
CREATE INDEX "console_sessions_operator_token_id_idx" ON "console_sessions" USING btree ("operator_token_id");