CREATE TABLE "operator_tokens" (
	"id" text PRIMARY KEY NOT NULL,
	"name" text NOT NULL,
	"scope" text NOT NULL,
	"token_hash" text NOT NULL,
	"created_at" timestamp with time zone NOT NULL,
	"expires_at" timestamp with time zone,
	"last_used_at" timestamp with time zone,
	"revoked_at" timestamp with time zone,
	CONSTRAINT "operator_tokens_scope_check" CHECK ("operator_tokens"."scope" in ('read', 'write'))
);
--> statement-breakpoint
CREATE UNIQUE INDEX "operator_tokens_token_hash_idx" ON "operator_tokens" USING btree ("token_hash");--> statement-breakpoint
CREATE INDEX "operator_tokens_created_at_idx" ON "operator_tokens" USING btree ("created_at","id");